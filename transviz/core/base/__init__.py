"""The bottom of the core, used by every layer: the exceptions a user can cause (``errors``) and
their plain-language messages (``messages``: templates with arguments, which the CLI prints in
English and the GUI translates), a small Qt-free signal that observers subscribe to (``events``),
and the one way transviz writes a file (``files``: a temporary file renamed onto the target).
These modules import nothing else from transviz.
"""
