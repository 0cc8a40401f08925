"""A live class run from the window, for real: the teacher's window serves it on the loopback
address (any free port), a student's window joins through its dialog and follows the explorer,
a quiz question goes out in both languages, the answer is counted in the teacher's chart and the
reveal tells the student whether they were right; the teacher removes the student, exports the
answers, and closing the window closes the port."""
from __future__ import annotations

import csv
import json
import os
import socket
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPlainTextEdit
from websockets.sync.client import connect

from transviz.gui.class_teacher import port_taken
from transviz.gui.services.language import CHINESE, set_language
from transviz.live.protocol import SOCKET_PATH, WEIGHT_DECIMALS

WIRE = 10.0 ** -WEIGHT_DECIMALS / 2 + 1e-6  # a weight on the wire is rounded to this
WAIT_MS = 5000
LOOPBACK = "127.0.0.1"


def class_threads() -> list[str]:
    return [t.name for t in threading.enumerate() if t.name.startswith("transviz-class") and t.is_alive()]


@pytest.fixture
def teacher(open_window, shipped_model):
    """The teacher's window with a class running on the loopback address."""
    window = open_window((1366, 768), model=shipped_model, source="default", sentence="ich mochte ein bier")
    assert window.teacher_class.start(LOOPBACK, 0)
    yield window
    window.teacher_class.stop()


@pytest.fixture
def student(open_window, shipped_model):
    window = open_window((1366, 768), model=shipped_model, source="default")
    yield window
    window.student_class.leave()


def join(qtbot, student, url: str, nickname: str):
    """Join through File > Join a class's dialog, as a student does."""
    dialog = student.student_class.join_with_dialog()
    dialog.address.setText(url)
    dialog.nickname.setText(nickname)
    with qtbot.waitSignal(student.student_class.service.join_finished, timeout=WAIT_MS):
        qtbot.mouseClick(dialog.join_button, Qt.MouseButton.LeftButton)


def test_a_student_window_follows_answers_is_removed_and_the_port_closes(teacher, student, qtbot, tmp_path):
    server = teacher.teacher_class.service.server
    panel, explorer = teacher.teacher_class.panel, teacher.panels["explorer"]
    join(qtbot, student, server.join_url, "<b>Ana</b>")
    seat = student.student_class.panel
    assert student.student_class.dialog is None and student.student_class.dock.isVisible()  # the dialog is done
    assert seat.status_label.text() == "In the class as <b>Ana</b>."  # as typed, never markup
    qtbot.waitUntil(lambda: panel.nicknames() == ["<b>Ana</b>"], timeout=WAIT_MS)
    assert panel.students_box.title() == "Students: 1"

    for step in range(1, 4):  # the student follows three steps of the teacher's explorer
        assert explorer.controller.step()
        qtbot.waitUntil(lambda step=step: seat.state is not None and seat.state["step"] == step, timeout=WAIT_MS)
        large = explorer.attention.large
        assert seat.head.row_labels() == large.row_labels()
        np.testing.assert_allclose(seat.head.data, large.data, atol=WIRE)
        assert student.workspace.session.output_tokens == teacher.workspace.session.output_tokens
    assert seat.output.text().endswith("a") and [t for t, _ in seat.candidates.bars()] == \
        [c.token for c in teacher.workspace.session.history[-1].candidates]

    set_language(CHINESE)  # the class is asked in both languages whatever the window's
    explorer.quiz_action.trigger()  # takes step 4 hidden and asks about it
    quiz = explorer.quiz.question
    qtbot.waitUntil(lambda: seat.question is not None, timeout=WAIT_MS)
    asked = seat.question
    assert asked.prompt["en"].startswith("Step 4: which token will the model write next?")
    assert asked.prompt["zh"].startswith("第 4 步")
    assert list(asked.choices) == list(quiz.choices) and asked.open
    assert panel.prompt.text() == asked.prompt["zh"]  # the teacher's panel in the window's language
    view = server.room.view  # what students receive while the question is open: the step before it
    assert view["step"] == 3 and view["output"] == teacher.workspace.session.output_tokens[:-1]
    assert view["candidates"] == [] and len(view["head"]["rows"]) == 3
    set_language("en")

    with qtbot.waitActive(student):
        student.activateWindow()
    seat.setFocus()
    choice = 1 if quiz.truth != 1 else 2  # a wrong answer, by key
    qtbot.keyClick(seat, Qt.Key.Key_1 + choice)
    qtbot.waitUntil(lambda: panel.chart.counts[choice] == 1, timeout=WAIT_MS)
    assert panel.chart.truth is None and "\u2713" not in panel.chart.count_text(quiz.truth)  # not marked yet
    assert panel.answered.text() == "1 of 1 answered"
    qtbot.waitUntil(lambda: seat.question.choice == choice, timeout=WAIT_MS)
    assert panel.summary_rows() == [["q1", "practice", "1 of 1", "after Reveal"]]

    qtbot.mouseClick(panel.reveal_button, Qt.MouseButton.LeftButton)  # the panel's Reveal reveals the explorer's
    assert explorer.quiz.revealed and panel.chart.truth == quiz.truth
    qtbot.waitUntil(lambda: seat.result is not None, timeout=WAIT_MS)
    assert not seat.result.right and seat.verdict.text() == f"Not quite: the answer is '{quiz.truth_text}'."
    assert panel.summary_rows() == [["q1", "practice", "1 of 1", "0 (0%)"]]

    answers = tmp_path / "answers.csv"
    assert teacher.teacher_class.export_to(str(answers))
    rows = list(csv.DictReader(answers.open(encoding="utf-8-sig")))
    assert [(r["nickname"], r["question"], r["answer_text"], r["right"]) for r in rows] == \
        [("<b>Ana</b>", "q1", quiz.choices[choice], "no")]

    teacher.teacher_class.remove("<b>Ana</b>")
    qtbot.waitUntil(lambda: seat.status.kind == "removed", timeout=WAIT_MS)
    assert seat.status_label.text() == "The teacher removed you from the class."
    assert not seat.view.isVisibleTo(seat) and not seat.question_box.isVisibleTo(seat)
    assert not student.student_class.active and not student.menus.back_to_class_action.isEnabled()
    qtbot.waitUntil(lambda: panel.nicknames() == [], timeout=WAIT_MS)

    help_dialog = panel.show_help()  # the panel's "?": one paragraph, from starting to the export
    text = help_dialog.findChild(QPlainTextEdit).toPlainText()
    assert "port 8338" in text and "Export answers" in text and "\n" not in text
    help_dialog.close()

    port = server.port
    teacher.close()  # closing the window stops the class
    with pytest.raises(OSError):
        socket.create_connection((LOOPBACK, port), timeout=1).close()
    assert not teacher.teacher_class.running and class_threads() == []


def test_the_student_explores_and_f6_brings_the_class_back(teacher, student, qtbot):
    server, explorer = teacher.teacher_class.service.server, teacher.panels["explorer"]
    dialog = student.student_class.join_with_dialog()
    dialog.address.setText(server.url)  # no code in the address ...
    dialog.nickname.setText("Bo")
    qtbot.mouseClick(dialog.join_button, Qt.MouseButton.LeftButton)
    assert dialog.error.text().startswith("The address has no join code") and dialog.join_button.isEnabled()
    dialog.code.setText(server.code.lower())  # ... typed apart, as it comes
    with qtbot.waitSignal(student.student_class.service.join_finished, timeout=WAIT_MS):
        qtbot.mouseClick(dialog.join_button, Qt.MouseButton.LeftButton)
    assert student.student_class.active
    for _ in range(2):
        explorer.controller.step()
    mine = student.panels["explorer"].controller
    qtbot.waitUntil(lambda: student.workspace.session.position == 2, timeout=WAIT_MS)
    mine.back()  # the student explores: the explorer stops following
    assert "exploring on your own" in student.student_class.panel.follow_note.text()
    explorer.controller.step()
    qtbot.waitUntil(lambda: student.student_class.state["step"] == 3, timeout=WAIT_MS)
    assert student.workspace.session.position == 1
    student.tabs.setCurrentIndex(2)  # and wanders to another tab
    with qtbot.waitActive(student):
        student.activateWindow()
    qtbot.keyClick(student, Qt.Key.Key_F6)
    assert student.tabs.currentIndex() == 0 and student.workspace.session.position == 3
    assert student.student_class.panel.follow_note.text() == ""
    assert student.workspace.session.output_tokens == teacher.workspace.session.output_tokens


def test_a_burst_of_steps_sends_the_latest_view_once(teacher, qtbot):
    """Playing fast must not queue a view per step: a burst goes as one view, the latest."""
    server, explorer = teacher.teacher_class.service.server, teacher.panels["explorer"]
    with connect(f"ws://{LOOPBACK}:{server.port}{SOCKET_PATH}", proxy=None, open_timeout=5) as ws:
        ws.send(json.dumps({"type": "join", "code": server.code, "nickname": "Cy"}))
        first = [json.loads(ws.recv(5))["type"] for _ in range(2)]
        assert first == ["welcome", "state"]
        for _ in range(5):
            explorer.controller.step()
        qtbot.wait(300)  # far longer than the views' gap
        states = []
        while True:
            try:
                states.append(json.loads(ws.recv(0.3)))
            except TimeoutError:
                break
    assert [s["state"]["step"] for s in states if s["type"] == "state"] == [5]


def test_a_taken_port_is_recognised(qtbot):
    with socket.socket() as taken:
        taken.bind((LOOPBACK, 0))
        taken.listen()
        assert port_taken(LOOPBACK, taken.getsockname()[1])
    free = socket.socket()
    free.bind((LOOPBACK, 0))
    port = free.getsockname()[1]
    free.close()
    assert not port_taken(LOOPBACK, port)


def test_the_join_window_fits_its_screen_with_a_long_address(qtbot):
    """The projector's window: the address and the code read from afar, the QR code a good part of
    the screen's height, and a long address takes smaller letters rather than a window wider than
    the screen."""
    from transviz.gui.widgets.join_window import JoinWindow

    window = JoinWindow()
    qtbot.addWidget(window)
    address = "http://192.168.100.200:8338/"
    window.show_class(address, address + "#K7Q2MX", "K7Q2MX")
    window.show()
    qtbot.waitExposed(window)
    screen = window.screen().availableGeometry()
    assert window.address.text() == address and window.code.text() == "K7Q2MX"
    assert window.minimumSizeHint().width() <= screen.width() and window.frameGeometry().width() <= screen.width()
    assert window.qr.pixmap().width() >= 0.3 * min(screen.height(), screen.width())
    assert window.code.font().pixelSize() >= 48 and window.address.font().pixelSize() >= 24  # letters 1-2 cm high
    qtbot.keyClick(window, Qt.Key.Key_Escape)
    assert not window.isVisible()


def test_a_lessons_captions_and_quiz_slides_go_to_the_class(teacher, qtbot):
    """A lesson run in the class: each slide's caption in both languages, each quiz slide's question
    asked, and its step kept out of the view until the reveal."""
    from transviz.core.io.resources import shipped_lessons
    from transviz.core.teaching.lesson import read

    path = shipped_lessons()["01-data-flow"]
    lesson, server = read(path), teacher.teacher_class.service.server
    assert teacher.open_lesson(path)
    teacher.teacher_class.panel.label_box.setCurrentIndex(1)  # the lesson's questions are a pre-test
    teacher.lesson_mode.go(4)  # step 4: where will head 0 of layer 2 look?
    slide = lesson.slides[4]
    qtbot.waitUntil(lambda: (server.room.view or {}).get("caption") == {"en": slide.caption_en,
                                                                        "zh": slide.caption_zh}, timeout=WAIT_MS)
    question, is_open, _ = server.room.current()
    assert question.kind == "where" and question.label == "pre" and is_open and list(question.choices) == \
        teacher.workspace.session.source_tokens
    assert question.prompt["en"].startswith("Step 4: where will layer 2, head 0 look?")
    view = server.room.view
    assert view["step"] == 3 and view["output"] == teacher.workspace.session.output_tokens[:-1]
    assert len(view["head"]["rows"]) == 3  # the asked step's query row is not sent
    teacher.panels["explorer"].quiz.reveal()  # the explorer's reveal reveals the class's question
    assert server.room.current()[2]
    qtbot.waitUntil(lambda: server.room.view["step"] == 4, timeout=WAIT_MS)
    teacher.lesson_mode.stop()
    qtbot.waitUntil(lambda: server.room.view["caption"] is None, timeout=WAIT_MS)


@pytest.mark.process
@pytest.mark.parametrize("screen, mode", [((1366, 768), "desktop"), ((1920, 1080), "presentation")])
def test_the_class_panel_fits_beside_the_explorer(screen, mode, tmp_path):
    """On a laptop's 1366 x 768 screen, and a projector's 1920 x 1080 in presentation mode, the
    window with its Class panel open (a question asked) stays on the screen in both languages, the
    explorer keeps its minimum width and the panel a readable one. A process of its own: the
    offscreen screen is sized there."""
    config = tmp_path / "screen.json"
    config.write_text(json.dumps({"screens": [{"name": "screen", "x": 0, "y": 0, "width": screen[0],
                                               "height": screen[1], "logicalDpi": 96, "logicalBaseDpi": 96,
                                               "dpr": 1}]}))
    root = Path(__file__).parents[2]
    env = {**os.environ, "QT_QPA_PLATFORM": f"offscreen:configfile={config}", "TRANSVIZ_SETTINGS": "",
           "PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, str(Path(__file__).with_name("class_fit_probe.py")), mode], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    for language, sizes in json.loads(done.stdout.strip().splitlines()[-1]).items():
        room = sizes["available"]
        assert room == list(screen) and sizes["on_screen"], (language, sizes)
        assert sizes["minimum"][0] <= room[0] and sizes["minimum"][1] <= room[1], (language, sizes)
        assert sizes["explorer"][0] >= sizes["explorer_minimum"][0], (language, sizes)
        assert sizes["dock"][0] >= 0.2 * room[0] and sizes["chart"][0] >= 200, (language, sizes)
        assert sizes["panel_content"][0] <= sizes["dock"][0], (language, sizes)  # nothing cut at its right


def test_the_head_shown_large_goes_to_the_class_and_f6_brings_the_panel_back(teacher, qtbot):
    server, explorer = teacher.teacher_class.service.server, teacher.panels["explorer"]
    explorer.controller.step()
    explorer.attention.kind.setCurrentIndex(1)  # decoder masked self-attention
    explorer.attention.select(1, 3)
    qtbot.waitUntil(lambda: (server.room.view or {}).get("head", {}) and
                    (server.room.view["head"]["kind"], server.room.view["head"]["layer"],
                     server.room.view["head"]["head"]) == ("decoder", 1, 3), timeout=WAIT_MS)
    teacher.teacher_class.join_window.close()  # the projector's window and ...
    teacher.teacher_class.dock.close()  # ... the panel closed
    with qtbot.waitActive(teacher):
        teacher.activateWindow()
    assert teacher.isActiveWindow()
    qtbot.keyClick(teacher, Qt.Key.Key_F6)  # F6 brings the panel back
    assert teacher.teacher_class.dock.isVisible()
