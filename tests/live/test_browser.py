"""A real headless browser (Debian's Chromium, driven by selenium through Debian's chromedriver)
joins a class on the loopback address, follows three views, answers a question by clicking and
sees whether it was right; once in English and once with Chinese as the browser's language.

Screenshots of a phone-sized and a desktop window go to $TRANSVIZ_LIVE_SHOTS when it names a
folder (to look at), else to the test's temporary folder."""
from __future__ import annotations

import base64
import os
import shutil
import time
from pathlib import Path

import pytest

from transviz.live import ClassServer, Question

pytestmark = pytest.mark.process  # starts chromedriver and Chromium

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
WAIT_S = 15.0
if CHROMIUM is None or DRIVER is None:
    pytest.skip("needs Chromium and chromedriver (Debian: apt-get install chromium chromium-driver)",
                allow_module_level=True)
webdriver = pytest.importorskip("selenium.webdriver", reason="needs selenium (the test extra)")
from selenium.common.exceptions import NoAlertPresentException  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402

PHONE, DESKTOP = (390, 844), (1280, 900)
SOURCE = ["ich", "mochte", "ein", "bier", "</s>"]
OUTPUTS = ["i", "want", "a", "beer", "</s>"]


def view(step):
    output = OUTPUTS[:step + 1]
    queries = [f"{fed} -> {out}" for fed, out in zip(["<s>", *output], output, strict=False)]
    weights = [[0.82 if key == row else 0.045 for key in range(len(SOURCE))] for row in range(len(output))]
    return {"sentence": "ich mochte ein bier", "source": SOURCE, "output": output, "step": step + 1,
            "candidates": [[OUTPUTS[step], 0.87], ["you", 0.06], ["we", 0.03], ["they", 0.02], ["it", 0.01]],
            "head": {"kind": "cross", "layer": 2, "head": 1, "rows": queries, "cols": SOURCE, "weights": weights},
            "caption": {"en": "Each output token looks back at the source words.",
                        "zh": "每个输出词都回头看原句中的词。"},
            "model": "toy-de-en"}


QUESTION = Question("q1", "next", {"en": "Which token will the model write next, after \u201ci want a\u201d?",
                                   "zh": "在\u201ci want a\u201d之后，模型下一个会写哪个词？"},
                    ("a", "beer", "the", "drink"), 1, "pre")


def browser(language):
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--no-proxy-server", "--no-first-run", "--disable-extensions", "--disable-sync",
                     "--disable-background-networking", "--disable-component-update", "--hide-scrollbars",
                     f"--lang={language}", f"--window-size={PHONE[0]},{PHONE[1]}", "--force-device-scale-factor=1"):
        options.add_argument(argument)
    options.add_experimental_option("prefs", {"intl.accept_languages": language})
    return webdriver.Chrome(service=webdriver.ChromeService(executable_path=DRIVER), options=options)


def until(check, what):
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        try:
            result = check()
        except Exception:
            result = None
        if result:
            return result
        time.sleep(0.05)
    raise AssertionError(f"the page never showed {what}")


def shots_folder(tmp_path):
    folder = Path(os.environ.get("TRANSVIZ_LIVE_SHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def screenshot(driver, size, path):
    """The whole page in a window of ``size`` (what lies below the window included)."""
    driver.set_window_size(*size)
    time.sleep(0.2)  # the heatmap redraws for the new width
    metrics = driver.execute_cdp_cmd("Page.getLayoutMetrics", {})["cssContentSize"]
    clip = {"x": 0, "y": 0, "width": size[0], "height": max(size[1], metrics["height"]), "scale": 1}
    shot = driver.execute_cdp_cmd("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True,
                                                            "clip": clip})
    path.write_bytes(base64.b64decode(shot["data"]))


def texts(driver, selector):
    return [e.text for e in driver.find_elements(By.CSS_SELECTOR, selector)]


@pytest.mark.parametrize("language, nickname, click, expected", [
    ("en-US", "<svg onload=alert(1)>", 1, {"you": "You: <svg onload=alert(1)>", "step": "step 3", "right": "Right!",
                                          "prompt": "Which token will the model write next", "label": "Pre-test"}),
    ("zh-CN", "小明", 0, {"you": "你：小明", "step": "第 3 步", "right": "这次没答对。答案是：beer",
                         "prompt": "模型下一个会写哪个词", "label": "课前测"}),
])
def test_a_browser_joins_follows_three_views_and_answers(language, nickname, click, expected, tmp_path):
    shots = shots_folder(tmp_path)
    name = language[:2]
    with ClassServer("127.0.0.1", 0) as server:
        driver = browser(language)
        try:
            driver.get(server.join_url)
            assert driver.find_element(By.ID, "code").get_attribute("value") == server.code  # from the fragment
            screenshot(driver, PHONE, shots / f"{name}-phone-join.png")
            driver.find_element(By.ID, "nickname").send_keys(nickname)
            driver.find_element(By.ID, "join-button").click()
            until(lambda: driver.find_element(By.ID, "class").is_displayed(), "the class")
            assert driver.find_element(By.ID, "who").text == expected["you"]
            assert driver.find_elements(By.CSS_SELECTOR, "svg, img") == []  # the nickname stayed text
            with pytest.raises(NoAlertPresentException):
                driver.switch_to.alert.text  # noqa: B018  (no script ran)
            assert server.room.students()[0].nickname == nickname

            for step in range(3):
                server.show(view(step))
                until(lambda step=step: texts(driver, "#output .token") == OUTPUTS[:step + 1], f"step {step + 1}")
            assert texts(driver, "#source .token") == SOURCE
            assert driver.find_element(By.ID, "step").text == expected["step"]
            assert driver.find_element(By.ID, "caption").text == view(2)["caption"][name]
            assert len(driver.find_elements(By.CSS_SELECTOR, "#candidates .bar-row")) == 5
            # the heatmap is drawn from the numbers: a strong cell dark, a weak one light
            dark, light = driver.execute_script("""
                const canvas = document.getElementById('heatmap'), ctx = canvas.getContext('2d');
                const r = window.devicePixelRatio || 1, d = canvas.dataset;
                const cell = (row, col) => Array.from(ctx.getImageData((+d.left + (col + 0.15) * d.cell) * r,
                    (+d.top + (row + 0.15) * d.cell) * r, 1, 1).data).slice(0, 3);  // beside the value printed
                return [cell(2, 2), cell(2, 4)];  // row 2 looks hardest at key 2 (the weights above)
            """)
            assert dark is not None and sum(dark) < 300 and sum(light) > 600, (dark, light)

            server.ask(QUESTION)
            until(lambda: len(driver.find_elements(By.CSS_SELECTOR, "#choices .choice")) == 4, "the question")
            assert expected["prompt"] in driver.find_element(By.ID, "prompt").text
            assert driver.find_element(By.ID, "question-label").text == expected["label"]
            assert texts(driver, "#choices .choice") == ["a", "beer", "the", "drink"]
            driver.find_elements(By.CSS_SELECTOR, "#choices .choice")[click].click()
            until(lambda: server.tally().answered == 1, "the answer counted")
            assert server.tally().counts == tuple(int(i == click) for i in range(4))
            until(lambda: "chosen" in driver.find_elements(By.CSS_SELECTOR, ".choice")[click].get_attribute("class"),
                  "the choice marked")
            screenshot(driver, PHONE, shots / f"{name}-phone-question.png")

            server.reveal()
            until(lambda: driver.find_element(By.ID, "question-message").text == expected["right"], "the result")
            assert "answer" in driver.find_elements(By.CSS_SELECTOR, ".choice")[1].get_attribute("class")
            assert all(not b.is_enabled() for b in driver.find_elements(By.CSS_SELECTOR, ".choice"))
            screenshot(driver, PHONE, shots / f"{name}-phone-result.png")
            screenshot(driver, DESKTOP, shots / f"{name}-desktop-result.png")
            assert driver.execute_script("return document.documentElement.lang") == ("zh-CN" if name == "zh" else "en")

            driver.refresh()  # a reloaded page rejoins as the same student, the answer kept
            until(lambda: driver.find_element(By.ID, "question-message").text == expected["right"], "the rejoin")
            assert driver.find_element(By.ID, "who").text == expected["you"]
            assert server.room.count() == 1 and server.tally().answered == 1
        finally:
            driver.quit()
