"""A real headless browser (the system's Chromium, driven by selenium through its chromedriver)
joins the class the teacher's *window* serves on the loopback address, follows three steps of the
window's explorer, answers the quiz's question by a click, and the window's chart counts it.

Screenshots of the page and of the teacher's window go to $TRANSVIZ_LIVE_SHOTS when it names a
folder (to look at), else to the test's temporary folder."""
from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt

pytestmark = pytest.mark.process  # starts chromedriver and Chromium

# the live class's own browser test holds the well-tried helpers: a headless Chromium and its screenshots
browser_test = pytest.importorskip("live.test_browser", reason="needs tests/live/test_browser.py")
By = browser_test.By
WAIT_MS = 15_000


def shown(check):
    """``check`` as a condition to wait for: an element not there yet is not an error."""
    def condition() -> bool:
        try:
            return bool(check())
        except Exception:
            return False
    return condition


def test_a_browser_joins_the_windows_class_follows_and_answers(open_window, shipped_model, qtbot, tmp_path):
    shots = browser_test.shots_folder(tmp_path)
    teacher = open_window((1366, 768), model=shipped_model, source="default", sentence="ich mochte ein bier")
    assert teacher.teacher_class.start("127.0.0.1", 0)
    server, explorer = teacher.teacher_class.service.server, teacher.panels["explorer"]
    panel = teacher.teacher_class.panel
    driver = browser_test.browser("en-US")
    try:
        driver.get(server.join_url)
        driver.find_element(By.ID, "nickname").send_keys("Dee")
        driver.find_element(By.ID, "join-button").click()
        qtbot.waitUntil(lambda: panel.nicknames() == ["Dee"], timeout=WAIT_MS)

        for _ in range(3):  # three steps
            explorer.controller.step()
            output = teacher.workspace.session.output_tokens
            qtbot.waitUntil(shown(lambda output=output: browser_test.texts(driver, "#output .token") == output),
                            timeout=WAIT_MS)
        assert browser_test.texts(driver, "#source .token") == teacher.workspace.session.source_tokens
        layer, head = explorer.attention.selected()
        assert driver.find_element(By.ID, "head-title").text == f"Cross-attention, layer {layer}, head {head}"
        # the numbers the page draws its heatmap from are the window's large head's
        np.testing.assert_allclose(server.room.view["head"]["weights"], explorer.attention.large.data, atol=1e-4)

        explorer.quiz_action.trigger()
        question = explorer.quiz.question
        qtbot.waitUntil(shown(lambda: len(driver.find_elements(By.CSS_SELECTOR, "#choices .choice"))
                              == len(question.choices)), timeout=WAIT_MS)
        assert browser_test.texts(driver, "#choices .choice") == list(question.choices)
        assert browser_test.texts(driver, "#output .token") == teacher.workspace.session.output_tokens[:-1]
        driver.find_elements(By.CSS_SELECTOR, "#choices .choice")[question.truth].click()
        qtbot.waitUntil(lambda: panel.chart.counts[question.truth] == 1, timeout=WAIT_MS)
        assert panel.chart.truth is None and panel.answered.text() == "1 of 1 answered"
        browser_test.screenshot(driver, browser_test.PHONE, shots / "browser-question.png")
        teacher.grab().save(str(shots / "teacher-chart-with-browser.png"))

        qtbot.mouseClick(panel.reveal_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(shown(lambda: driver.find_element(By.ID, "question-message").text == "Right!"),
                        timeout=WAIT_MS)
        browser_test.screenshot(driver, browser_test.PHONE, shots / "browser-result.png")
    finally:
        driver.quit()
        teacher.teacher_class.stop()
