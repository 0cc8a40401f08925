"""The dates task, checked against an independent parser built on datetime.strptime."""
import datetime
import re
from collections import Counter

import pytest

from transviz.core.data.tasks import Dataset, load_task

ISSUE_EXAMPLES = ("3 March 2021", "03/03/21", "March 3rd, 2021", "Wednesday, 3 March 2021", "2021年3月3日",
                  "3.3.2021", "2021-3-3", "Mar 3 2021")
WEEKDAY = re.compile(r"\b(Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|Mon|Tue|Wed|Thu|Fri|Sat|Sun)\b")


@pytest.fixture(scope="module")
def data() -> Dataset:
    return load_task("dates")


def pairs(data):
    return data.train + data.valid + data.test


def two_digit_year(yy):
    return 1900 + yy if yy >= 50 else 2000 + yy  # the pivot the task documents


STRPTIME = ("%d %B %Y", "%B %d, %Y", "%A, %d %B %Y", "%d.%m.%Y", "%Y-%m-%d", "%b %d %Y", "%d/%m/%Y",
            "%A, %B %d, %Y", "%a %d %b %Y", "%d-%b-%Y", "%Y/%m/%d", "%Y%m%d", "%d %b %Y")


def readings(text):
    """Every date the text can be read as, by the formats this test knows about."""
    found = set()
    plain = re.sub(r"\b(\d{1,2})(st|nd|rd|th)\b", r"\1", text)  # 3rd -> 3
    plain = re.sub(r"^the (\d{1,2}) of ", r"\1 ", plain)
    for pattern in STRPTIME:
        try:
            found.add(datetime.datetime.strptime(plain, pattern).date())
        except ValueError:
            pass
    if m := re.fullmatch(r"(\d{2})[/.](\d{2})[/.](\d{2})", text):
        found.add(datetime.date(two_digit_year(int(m[3])), int(m[2]), int(m[1])))
    if m := re.fullmatch(r"(\d{4})年(\d{1,2})月(\d{1,2})日", text):
        found.add(datetime.date(int(m[1]), int(m[2]), int(m[3])))
    return found


def test_every_source_reads_as_exactly_its_target(data):
    checked = data.valid + data.test + data.train[::3]  # strptime is slow; a third of training suffices
    for p in checked:
        assert readings(p.source) == {datetime.date.fromisoformat(p.target)}, p


def test_targets_are_iso_dates_in_the_documented_range(data):
    for p in pairs(data):
        day = datetime.date.fromisoformat(p.target)
        assert p.target == day.isoformat() and datetime.date(1950, 1, 1) <= day <= datetime.date(2049, 12, 31)


def test_written_weekdays_are_true(data):
    with_weekday = [p for p in pairs(data) if WEEKDAY.search(p.source)]
    assert len(with_weekday) >= 1000
    for p in with_weekday:
        written = WEEKDAY.search(p.source)[1]
        assert datetime.date.fromisoformat(p.target).strftime("%A").startswith(written), p


def test_each_source_has_one_target_and_test_dates_are_never_trained(data):
    targets = {}
    for p in pairs(data):
        assert targets.setdefault(p.source, p.target) == p.target
    train_dates = {p.target for p in data.train}
    assert not train_dates & {p.target for p in data.valid + data.test}
    assert len({p.target for p in data.valid + data.test}) == len(data.valid) + len(data.test) == 1000


def test_sizes_formats_and_characters(data):
    assert len(data.train) >= 10_000 and data.source_level == data.target_level == "char"
    assert data.examples == ISSUE_EXAMPLES
    train = {p.source: p.target for p in data.train}
    assert all(train[e] == "2021-03-03" for e in ISSUE_EXAMPLES)
    shapes = Counter(re.sub(r"\d", "9", re.sub(r"[A-Za-z]+", "A", p.source)) for p in data.test)
    assert len(shapes) >= 15  # many formats in the test split, not a few
    source_vocab, target_vocab = data.build_vocabs()
    assert len(target_vocab) == 4 + 11  # specials, ten digits and "-"
    for p in data.valid + data.test:
        assert source_vocab.encode(p.source).unknown == []


def test_another_seed_holds_out_other_dates(data):
    other = load_task("dates", seed=1)
    assert {p.target for p in other.test} != {p.target for p in data.test}
