"""The students' page ships whole (no file from elsewhere), never turns text into markup, and
speaks both languages key for key; the QR code and the address to show."""
from __future__ import annotations

import ipaddress
import re
import struct
import xml.etree.ElementTree as ET

import pytest

from transviz.core.io.resources import resource_dir
from transviz.live.address import join_url, lan_address, lan_addresses, page_url, ranked
from transviz.live.qr import qr_png, qr_svg, qr_text
from transviz.live.server import FILES, page_files

PAGE = resource_dir() / "class"


def test_every_file_the_page_names_is_served_and_nothing_comes_from_elsewhere():
    html = (PAGE / "index.html").read_text(encoding="utf-8")
    named = set(re.findall(r'(?:src|href)="([^"]+)"', html))
    assert named == {"class.css", "strings.js", "class.js", "data:,"}
    assert {"/" + n for n in named if n != "data:,"} <= set(FILES)
    for name in ("index.html", "class.js", "class.css", "strings.js"):
        text = (PAGE / name).read_text(encoding="utf-8")
        assert not re.search(r"https?://|//cdn|@import|url\(", text), name
    assert set(page_files()) == set(FILES)


@pytest.mark.parametrize("name", ["class.js", "strings.js"])
def test_the_script_never_turns_text_into_markup(name):
    script = (PAGE / name).read_text(encoding="utf-8")
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "Function(",
                 "setAttribute(\"on", "srcdoc", "javascript:"):
        assert sink not in script, sink


def test_both_languages_have_every_string():
    script = (PAGE / "strings.js").read_text(encoding="utf-8")
    english, chinese = script.split("\n  zh: {")
    keys = [set(re.findall(r"^\s{4}(\w+):", part, re.M)) for part in (english, chinese)]
    assert keys[0] == keys[1] and len(keys[0]) > 40
    used = set(re.findall(r'\bt\("(\w+)"[,)]', (PAGE / "class.js").read_text(encoding="utf-8")))
    used |= set(re.findall(r'data-text="(\w+)"', (PAGE / "index.html").read_text(encoding="utf-8")))
    assert used <= keys[0], used - keys[0]


def test_the_qr_code_as_png_svg_and_text():
    url = "http://192.168.1.20:8338/#K7Q2MX"
    png = qr_png(url, scale=10)
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    width, height = struct.unpack(">II", png[16:24])
    assert width == height and width % 10 == 0 and width >= 10 * (21 + 8)  # version 1 or more, 4 modules of border
    svg = ET.fromstring(qr_svg(url))
    assert svg.tag.endswith("svg")
    lines = qr_text(url).splitlines()
    assert len(lines) >= (21 + 8) // 2 and set("".join(lines)) <= set(" \u2580\u2584\u2588")


def test_the_address_to_show_is_one_of_this_computers_and_not_loopback_when_it_has_another():
    for address in lan_addresses():
        ip = ipaddress.IPv4Address(address)
        assert not ip.is_loopback and not ip.is_link_local
    assert lan_address() == (lan_addresses() or ["127.0.0.1"])[0]
    assert page_url("10.0.0.7", 8338) == "http://10.0.0.7:8338/"
    assert page_url("::1", 8338) == "http://[::1]:8338/"
    assert join_url("http://10.0.0.7:8338/#OLD", "K7Q2MX") == "http://10.0.0.7:8338/#K7Q2MX"


def test_the_classrooms_address_comes_before_loopback_containers_and_vpns():
    interfaces = [("lo", "127.0.0.1"), ("docker0", "172.17.0.1"), ("wg0", "10.8.0.2"), ("eth1", "93.184.216.34"),
                  ("wlan0", "192.168.1.20"), ("eth0", "169.254.3.4"), ("wlan0", "fe80::1"), ("eth2", "10.0.0.7")]
    assert ranked(interfaces) == ["192.168.1.20", "10.0.0.7", "93.184.216.34", "172.17.0.1", "10.8.0.2"]
