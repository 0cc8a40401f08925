"""The bottom of the core, used by every layer: the exceptions a user can cause (``errors``) and
their plain-language messages (``messages``: templates with arguments, which the CLI prints in
English and the GUI translates), a small Qt-free signal that observers subscribe to (``events``),
the one way transviz writes a file (``files``: a temporary file renamed onto the target), how
many torch threads a computation gets (``cores``) and the program's start with full garbage
collections held back (``startup``). These modules import nothing else from transviz.
"""
