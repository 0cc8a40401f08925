"""``dates``: human-written dates -> ISO ``YYYY-MM-DD``, character by character.

Cross-attention on characters draws the classic picture: the output digits of the year attend to
the year wherever the format puts it, the month digits to the month's name or number.

Conventions, so that the mapping is a function (one source, one target):

* Numeric dates with ``/`` or ``.`` are always **day first** (DD/MM/YY, D/M/YYYY, DD.MM.YYYY,
  D.M.YYYY): "03/04/21" is 3 April 2021, never March 4. Month-first order appears only with the
  month's name ("March 3rd, 2021", "Mar 3 2021"), where it cannot be misread.
* Numeric dates that start with the year use ``-`` or ``/`` or nothing: 2021-3-3, 2021/03/03, 20210303.
* Two-digit years pivot at 50: ``50``-``99`` are 1950-1999 and ``00``-``49`` are 2000-2049. Dates
  range over exactly those hundred years, 1950-01-01 to 2049-12-31.
* A weekday, when written, is the true weekday of that date.

Held-out dates: the validation and test dates never occur in training, in any format.
"""
from __future__ import annotations

import datetime
import random
from collections.abc import Callable

from .dataset import Dataset, Pair

NAME = "dates"
FIRST, LAST = datetime.date(1950, 1, 1), datetime.date(2049, 12, 31)
TRAIN_SIZE, VALID_SIZE, TEST_SIZE = 12_000, 500, 500
EXAMPLE_DATE = datetime.date(2021, 3, 3)  # the examples' date: always in training

MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
          "October", "November", "December")
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


def ordinal(day: int) -> str:
    """1 -> "1st", 2 -> "2nd", 3 -> "3rd", 11 -> "11th", 22 -> "22nd"."""
    suffix = "th" if 10 <= day % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")
    return f"{day}{suffix}"


def _month(d: datetime.date) -> str:
    return MONTHS[d.month - 1]


def _weekday(d: datetime.date) -> str:
    return WEEKDAYS[d.weekday()]


# Each format writes a date; the first eight are the issue's own examples, in its words.
FORMATS: dict[str, Callable[[datetime.date], str]] = {
    "D Month YYYY": lambda d: f"{d.day} {_month(d)} {d.year}",
    "DD/MM/YY": lambda d: f"{d.day:02d}/{d.month:02d}/{d.year % 100:02d}",
    "Month Dth, YYYY": lambda d: f"{_month(d)} {ordinal(d.day)}, {d.year}",
    "Weekday, D Month YYYY": lambda d: f"{_weekday(d)}, {d.day} {_month(d)} {d.year}",
    "YYYY年M月D日": lambda d: f"{d.year}年{d.month}月{d.day}日",
    "D.M.YYYY": lambda d: f"{d.day}.{d.month}.{d.year}",
    "YYYY-M-D": lambda d: f"{d.year}-{d.month}-{d.day}",
    "Mon D YYYY": lambda d: f"{_month(d)[:3]} {d.day} {d.year}",
    "DD.MM.YYYY": lambda d: f"{d.day:02d}.{d.month:02d}.{d.year}",
    "DD.MM.YY": lambda d: f"{d.day:02d}.{d.month:02d}.{d.year % 100:02d}",
    "D/M/YYYY": lambda d: f"{d.day}/{d.month}/{d.year}",
    "Month D, YYYY": lambda d: f"{_month(d)} {d.day}, {d.year}",
    "Weekday, Month D, YYYY": lambda d: f"{_weekday(d)}, {_month(d)} {d.day}, {d.year}",
    "Wkd D Mon YYYY": lambda d: f"{_weekday(d)[:3]} {d.day} {_month(d)[:3]} {d.year}",
    "the Dth of Month YYYY": lambda d: f"the {ordinal(d.day)} of {_month(d)} {d.year}",
    "Dth Month YYYY": lambda d: f"{ordinal(d.day)} {_month(d)} {d.year}",
    "DD-Mon-YYYY": lambda d: f"{d.day:02d}-{_month(d)[:3]}-{d.year}",
    "YYYY/MM/DD": lambda d: f"{d.year}/{d.month:02d}/{d.day:02d}",
    "YYYYMMDD": lambda d: f"{d.year}{d.month:02d}{d.day:02d}",
    "YYYY-MM-DD": lambda d: d.isoformat(),
}
_WRITERS = tuple(FORMATS.values())
DESCRIPTION = (
    f"Rewrite a date written in one of {len(FORMATS)} everyday ways (\"3 March 2021\", \"03/03/21\", "
    "\"2021年3月3日\", ...) as YYYY-MM-DD, character by character. Numeric dates are day first; "
    "two-digit years 50-99 mean 1950-1999, 00-49 mean 2000-2049."
)


def examples() -> tuple[str, ...]:
    """The task's example sources: the example date in each of the issue's eight formats."""
    return tuple(write(EXAMPLE_DATE) for write in _WRITERS[:8])


def make(seed: int = 0) -> Dataset:
    """The ``dates`` task: 12,000 training pairs, 500 valid and 500 test on held-out dates."""
    rng = random.Random(f"{NAME}-{seed}")
    days = (LAST - FIRST).days + 1
    held = [d for d in (FIRST + datetime.timedelta(i) for i in rng.sample(range(days), VALID_SIZE + TEST_SIZE + 1))
            if d != EXAMPLE_DATE][: VALID_SIZE + TEST_SIZE]
    held_set = set(held)
    train: dict[str, str] = {source: EXAMPLE_DATE.isoformat() for source in examples()}
    while len(train) < TRAIN_SIZE:
        day = FIRST + datetime.timedelta(rng.randrange(days))
        if day not in held_set:
            train.setdefault(rng.choice(_WRITERS)(day), day.isoformat())
    held_pairs = [Pair(rng.choice(_WRITERS)(day), day.isoformat()) for day in held]
    return Dataset(NAME, "char", "char", tuple(Pair(s, t) for s, t in train.items()),
                   tuple(held_pairs[:VALID_SIZE]), tuple(held_pairs[VALID_SIZE:]), examples(),
                   description=DESCRIPTION)
