"""The classroom, on top of the core: the ``Workspace`` the window observes (``workspace``: the
model, the sentence and the explorer's decoding session), lesson files and their slides
(``lesson``; ``lesson_run`` plays them headless), the explorer's quiz (``quiz``) and animations
for slides (``animation``). The top layer of the core.
"""
