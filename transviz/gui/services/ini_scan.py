"""Checks the raw bytes of a settings file before Qt reads it.

QSettings turns a value written ``@Variant(...)`` or ``@DateTime(...)`` into a QVariant with
QDataStream, trusting the sizes in it: 54 bytes claiming a list of 2^31 strings abort the whole
process (``std::bad_alloc``). transviz writes only text, numbers, booleans and byte arrays, so
a file holding such a value did not come from it. :func:`problem` reads the file as Qt would
(its INI lines, escapes, quotes and continuation lines) without decoding anything, and says why
Qt must not see it. Where Qt's reading and this one could differ, this one refuses more.
"""
from __future__ import annotations

import codecs
import re
from collections.abc import Iterator

MAX_FILE_BYTES = 256 * 1024  # transviz writes a few kilobytes
MAX_VALUE_CHARS = 64 * 1024  # a window geometry or splitter state is under a hundred bytes
# Qt decodes these with QDataStream (QSettingsPrivate::stringToVariant)
DECODED_BY_QT = ("@Variant(", "@DateTime(")

_SPACES = b" \t\n\r"
_SPECIAL = re.compile(rb'[\n\r";=\\]')  # the characters that end a run in Qt's readIniLine
_PLAIN = re.compile(rb'[^\\",]+')  # a run of a value without escapes, quotes or commas
_ESCAPES = dict(zip(b"abfnrtv\"?'\\", "\a\b\f\n\r\t\v\"?'\\", strict=True))
_HEX, _OCTAL = b"0123456789abcdefABCDEF", b"01234567"
_CR, _LF = ord("\r"), ord("\n")


def problem(data: bytes) -> str | None:
    """Why Qt must not read a settings file holding ``data`` (in English, for the log), or None."""
    if len(data) > MAX_FILE_BYTES:
        return f"it holds {len(data):,} bytes; a settings file holds at most {MAX_FILE_BYTES:,}"
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8):]
    for line, equals in _lines(data):
        if line.startswith(b"["):
            if b"]" not in line:
                return f"a section is never closed: {_shown(line)}"
        elif equals < 0:
            if not line.startswith(b";"):
                return f"a line holds no '=': {_shown(line)}"
        else:
            why = _value_problem(line[equals + 1:])
            if why:
                return f"{why}: {_shown(line)}"
    return None


def _shown(line: bytes) -> str:
    return repr(line[:60]) + (" ..." if len(line) > 60 else "")


def _value_problem(raw: bytes) -> str | None:
    text = unescaped(raw)
    if len(text) > MAX_VALUE_CHARS:
        return f"a value of {len(text):,} characters (at most {MAX_VALUE_CHARS:,})"
    # Qt drops quotes and the spaces after a closing quote, and may move undecodable bytes:
    # without any of them, no part of the value may spell a marker Qt decodes
    squeezed = re.sub('[" \t\ufffd]', "", text)
    if any(marker in squeezed for marker in DECODED_BY_QT):
        return "a value Qt would decode as binary data"
    return None


def _lines(data: bytes) -> Iterator[tuple[bytes, int]]:
    """The logical lines of an INI file as Qt's ``readIniLine`` finds them: quotes and a
    backslash carry a line over a line break, ``;`` starts a comment. Each line with the index of
    its first unquoted ``=`` (-1: none)."""
    pos, size = 0, len(data)
    while True:
        start = pos
        while start < size and data[start] in _SPACES:
            start += 1
        i, quoted, equals = start, False, -1
        while i < size:
            found = _SPECIAL.search(data, i)
            if found is None:
                i = size
                break
            char, i = data[found.start()], found.start() + 1
            if char == ord("="):
                if not quoted and equals < 0:
                    equals = i - 1
            elif char in (_LF, _CR):
                if i == start + 1:
                    start += 1
                elif not quoted:
                    i -= 1
                    break
            elif char == ord("\\"):
                if i < size:
                    first, i = data[i], i + 1
                    if i < size and {first, data[i]} == {_CR, _LF}:
                        i += 1
            elif char == ord('"'):
                quoted = not quoted
            elif i == start + 1:  # ';' first on its line: a comment up to the line's end
                while i < size and data[i] not in (_LF, _CR):
                    i += 1
                while i < size and data[i] in _SPACES:
                    i += 1
                start = i
            elif not quoted:  # ';' later: the line ends before it
                i -= 1
                break
        pos = i
        if i <= start:
            return
        yield data[start:i], (equals - start if equals >= 0 else -1)


def unescaped(raw: bytes) -> str:
    """A value's text as Qt's ``iniUnescapedStringList`` reads it (the items of a list joined by
    commas): escapes (``\\n``, ``\\x40``, ``\\100``) and UTF-8 decoded, quotes dropped."""
    decoder = codecs.getincrementaldecoder("utf-8")("replace")  # one per value, as in Qt
    out: list[str] = []
    i, size = 0, len(raw)
    while i < size:
        char = raw[i]
        if char == ord("\\"):
            i += 1
            if i >= size:
                break
            char, i = raw[i], i + 1
            if char in _ESCAPES:
                out.append(_ESCAPES[char])
            elif char == ord("x"):
                i = _number(raw, i, 16, _HEX, 0, out)
            elif char in _OCTAL:
                i = _number(raw, i, 8, _OCTAL, char - ord("0"), out)
            elif char in (_LF, _CR) and i < size and raw[i] in (_LF, _CR) and raw[i] != char:
                i += 1  # a continued line; any other escaped character is dropped
        elif char == ord('"'):
            i += 1
        elif char == ord(","):
            out.append(",")
            i += 1
        else:
            run = _PLAIN.match(raw, i)
            assert run is not None
            out.append(decoder.decode(run.group()))
            i = run.end()
    return "".join(out)


def _number(raw: bytes, i: int, base: int, digits: bytes, value: int, out: list[str]) -> int:
    """A ``\\x`` or octal escape: every digit that follows counts, in a 16-bit character as in Qt.
    A ``\\x`` without a digit stands for nothing."""
    if base == 16 and (i >= len(raw) or raw[i] not in digits):
        return i
    while i < len(raw) and raw[i] in digits:
        value = (value * base + int(chr(raw[i]), base)) & 0xFFFF
        i += 1
    out.append(chr(value))
    return i
