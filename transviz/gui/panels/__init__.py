"""The tabs of the main window. Each is a :class:`~transviz.gui.panels.base.PlotPanel` that
takes the loaded model (or none) through ``set_model`` and renders arrays the core computes."""
