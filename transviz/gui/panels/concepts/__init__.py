"""The Concepts tab (:class:`~transviz.gui.panels.concepts.panel.ConceptsPanel`) and its views,
one module each (:mod:`~transviz.gui.panels.concepts.catalogue` lists them)."""
