"""The main window's menu bar: File, Model, View (a Ctrl+number entry per tab of
:data:`~transviz.gui.panels.registry.PANELS`, then the tabs' own view entries) and Help, with the
shipped models' and lessons' submenus and the entries that wait for a model or a decoded sentence.
The window adds the View menu's language, theme and presentation choices
(:class:`~transviz.gui.widgets.view_menu.ViewChoices`)."""
from __future__ import annotations

from pathlib import Path
from typing import Protocol

from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QMenu, QMenuBar, QTabWidget, QWidget

from ..core.base.messages import Message
from ..core.data.tasks import TASK_PAIRS, TASK_TITLES
from ..core.io.checkpoint import recorded_task
from ..core.io.resources import shipped_models
from ..core.teaching.workspace import Workspace
from ..core.training.recipes import SIBLING_TITLES
from .animations import AnimationExport
from .class_student import StudentClass
from .class_teacher import TeacherClass
from .lesson_files import LessonFiles
from .lesson_mode import populate_lessons_menu
from .panels.lazy_tabs import LazyPanels
from .panels.registry import PANELS
from .services.core_messages import translated
from .services.files import ModelFiles
from .services.language import Retranslated
from .session_files import SessionFiles
from .widgets.labels import bound_action, bound_menu


class MenuHost(Protocol):
    """The main window as its menus see it: the services and the dialogs its entries start."""

    files: ModelFiles
    sessions: SessionFiles
    lesson_files: LessonFiles
    animations: AnimationExport
    tabs: QTabWidget
    panels: LazyPanels
    teacher_class: TeacherClass
    student_class: StudentClass

    def menuBar(self) -> QMenuBar: ...
    def close(self) -> bool: ...
    def export_plot_with_dialog(self, suffix: str) -> None: ...
    def show_model_info(self) -> QWidget | None: ...
    def show_manual(self, this_tab: bool = False) -> None: ...
    def show_tab_help(self) -> QWidget: ...
    def open_lesson(self, path: str | Path) -> bool: ...
    def show_about(self) -> None: ...


class WindowMenus(Retranslated):
    """Builds ``window``'s menu bar. Its texts are retranslated by the window (:meth:`retranslate`),
    which gets the language-change event."""

    def __init__(self, window: MenuHost) -> None:
        self.window = window
        bar, keys, files = window.menuBar(), QKeySequence.StandardKey, window.files
        # the window's context, which the catalogue files these texts under; literal arguments for lupdate
        translate = QCoreApplication.translate
        file = bound_menu(self, bar, lambda: translate("MainWindow", "&File"))
        bound_action(self, file, lambda: translate("MainWindow", "&Open session..."),
                     window.sessions.open_with_dialog, "Ctrl+Shift+O")
        bound_action(self, file, lambda: translate("MainWindow", "&Save session..."),
                     window.sessions.save_with_dialog, keys.Save)
        file.addSeparator()
        lessons = window.lesson_files
        bound_action(self, file, lambda: translate("MainWindow", "Open &lesson..."), lessons.open_with_dialog,
                     "Ctrl+L")
        self.recent_menu = bound_menu(self, file, lambda: translate("MainWindow", "&Recent lessons"))
        lessons.populate_recent_menu(self.recent_menu)
        lessons.recent_changed.connect(lambda: lessons.populate_recent_menu(self.recent_menu))
        self.add_slide_action = bound_action(
            self, file, lambda: translate("MainWindow", "Add the current state as a sli&de..."),
            lessons.add_slide_with_dialog, "Ctrl+Shift+L")
        self.close_lesson_action = bound_action(self, file, lambda: translate("MainWindow", "Clos&e lesson"),
                                                lessons.close_lesson)
        self.close_lesson_action.setEnabled(False)
        file.addSeparator()
        self._add_class_entries(file)
        file.addSeparator()
        bound_action(self, file, lambda: translate("MainWindow", "Export current plot as &PNG..."),
                     lambda: window.export_plot_with_dialog(".png"))
        bound_action(self, file, lambda: translate("MainWindow", "Export current plot as S&VG..."),
                     lambda: window.export_plot_with_dialog(".svg"))
        self.animate_action = bound_action(
            self, file, lambda: translate("MainWindow", "Export &animation (GIF or MP4)..."),
            window.animations.export_with_dialog, "Ctrl+Shift+A")
        self.export_trace_action = bound_action(
            self, file, lambda: translate("MainWindow", "Export &trace as .npz or JSON..."),
            files.export_trace_with_dialog, "Ctrl+E")
        file.addSeparator()
        bound_action(self, file, lambda: translate("MainWindow", "&Quit"), window.close, keys.Quit)
        model = bound_menu(self, bar, lambda: translate("MainWindow", "&Model"))
        bound_action(self, model, lambda: translate("MainWindow", "&Open checkpoint..."), files.open_with_dialog,
                     keys.Open)
        bound_action(self, model, lambda: translate("MainWindow", "Open &folder (Hugging Face)..."),
                     files.open_folder_with_dialog)
        self.shipped_menu = bound_menu(self, model, lambda: translate("MainWindow", "Shipped &models"))
        self.populate_shipped_menu(shipped_models())
        self.save_action = bound_action(self, model, lambda: translate("MainWindow", "&Save model as..."),
                                        files.save_with_dialog, keys.SaveAs)
        model.addSeparator()
        self.info_action = bound_action(self, model, lambda: translate("MainWindow", "&Info..."),
                                        window.show_model_info, "Ctrl+I")
        self.view = bound_menu(self, bar, lambda: translate("MainWindow", "&View"))
        for index, spec in enumerate(PANELS):  # Ctrl+1 to Ctrl+9 (Ctrl+0 resets the zoom); Ctrl+Tab reaches all
            bound_action(self, self.view, spec.shown_title, lambda *_, i=index: window.tabs.setCurrentIndex(i),
                         f"Ctrl+{index + 1}" if index < 9 else None)
        self.view.addSeparator()
        # the tabs built with the window: the others' own entries would be missing until they are
        # built, so they have none (tests/gui/test_lazy_tabs.py checks)
        for panel in window.panels.built():
            self.view.addActions(panel.view_actions())
        self.view.addSeparator()
        # the way back from any tab to the class's panel, the teacher's or a student's (F6: free in the window)
        self.back_to_class_action = bound_action(self, self.view, lambda: translate("MainWindow", "Back to the class"),
                                                 self._back_to_class, "F6")
        self.follow_class()
        help_menu = bound_menu(self, bar, lambda: translate("MainWindow", "&Help"))
        bound_action(self, help_menu, lambda: translate("MainWindow", "&Manual"), lambda *_: window.show_manual())
        bound_action(self, help_menu, lambda: translate("MainWindow", "Manual page of this ta&b"),
                     lambda *_: window.show_manual(this_tab=True), keys.HelpContents)
        bound_action(self, help_menu, lambda: translate("MainWindow", "How to read this &tab"), window.show_tab_help,
                     keys.WhatsThis)
        self.lessons_menu = bound_menu(self, help_menu, lambda: translate("MainWindow", "&Lessons"))
        populate_lessons_menu(self.lessons_menu, window.open_lesson)
        bound_action(self, help_menu, lambda: translate("MainWindow", "&About transviz"), window.show_about)

    def _add_class_entries(self, file: QMenu) -> None:
        """File > Start a class, Stop the class, Join a class, Leave the class."""
        translate, teacher, student = QCoreApplication.translate, self.window.teacher_class, self.window.student_class
        self.start_class_action = bound_action(self, file, lambda: translate("MainWindow", "Start a &class..."),
                                               lambda *_: teacher.start())
        self.stop_class_action = bound_action(self, file, lambda: translate("MainWindow", "Stop the class"),
                                              teacher.stop)
        self.join_class_action = bound_action(self, file, lambda: translate("MainWindow", "&Join a class..."),
                                              student.join_with_dialog)
        self.leave_class_action = bound_action(self, file, lambda: translate("MainWindow", "Leave the class"),
                                               student.leave)
        teacher.running_changed.connect(lambda _: self.follow_class())
        student.active_changed.connect(lambda _: self.follow_class())

    def _back_to_class(self) -> None:
        if self.window.teacher_class.running:
            self.window.teacher_class.show_panel()
        else:
            self.window.student_class.back_to_class()

    def follow_class(self) -> None:
        """One class at a time: a window teaches one or sits in one."""
        teaching, joined = self.window.teacher_class.running, self.window.student_class.active
        self.start_class_action.setEnabled(not teaching and not joined)
        self.stop_class_action.setEnabled(teaching)
        self.join_class_action.setEnabled(not teaching and not joined)
        self.leave_class_action.setEnabled(joined)
        self.back_to_class_action.setEnabled(joined or teaching)

    def retranslate(self) -> None:
        super().retranslate()
        self.populate_shipped_menu(self._shipped)
        populate_lessons_menu(self.lessons_menu, self.window.open_lesson)  # titles in the new language
        self.window.lesson_files.populate_recent_menu(self.recent_menu)

    def populate_shipped_menu(self, models: dict[str, Path]) -> None:
        """List the shipped models by name (Model > Shipped models)."""
        self._shipped = dict(models)
        self.shipped_menu.clear()
        siblings = [name for name in SIBLING_TITLES if name in models]  # the variants, after the others
        for name, path in models.items():  # a model's name is its file's: not translated
            if name not in siblings:
                self._add_shipped(shipped_label(name, path), path)
        if siblings:
            self.shipped_menu.addSection(QCoreApplication.translate("MainWindow", "Variants of attention: the "
                                                                                  "default with one change"))
        for name in siblings:
            self._add_shipped(QCoreApplication.translate("MainWindow", "{0}: {1}").format(
                name, translated(Message(SIBLING_TITLES[name]))), models[name])
        if not models:
            self.shipped_menu.addAction(QCoreApplication.translate("MainWindow", "(none installed)")).setEnabled(False)

    def _add_shipped(self, text: str, path: Path) -> None:
        self.shipped_menu.addAction(text).triggered.connect(lambda _=False: self.window.files.open(path))

    def follow(self, workspace: Workspace) -> None:
        """Enable the entries that need a model, or a decoded sentence, when there is one."""
        self.save_action.setEnabled(workspace.model is not None)
        self.info_action.setEnabled(workspace.model is not None)
        self.export_trace_action.setEnabled(workspace.session is not None)
        self.animate_action.setEnabled(workspace.session is not None)
        self.add_slide_action.setEnabled(workspace.session is not None)

    def follow_lesson(self, active: bool) -> None:
        """File > Close lesson while a lesson is shown."""
        self.close_lesson_action.setEnabled(active)


def shipped_label(name: str, path: Path) -> str:
    """A shipped model's menu entry: its name and what it translates ("default: German → English")."""
    task = recorded_task(path)
    pair = TASK_PAIRS.get(task or "") or TASK_TITLES.get(task or "")
    return QCoreApplication.translate("MainWindow", "{0}: {1}").format(name, translated(Message(pair))) if pair \
        else name
