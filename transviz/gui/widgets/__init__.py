"""The pieces the tabs are built from: heatmaps and the attention grid, token strips, line plots,
the beam tree, the next-token bars, the decoding controls, the intervention bar and menus, labels
that show text as typed, the training form. Each draws what it is given (arrays the core
computed, signals of ``services``) and knows no tab. Imports ``services`` and ``style`` only.
"""
