"""Running a model on a sentence: the step-by-step ``DecodingSession`` (``session``) that the
window and the CLI observe, its strategies (``strategies``; ``beam`` for beam search, ``paths``
for the decoded tokens as shared prefixes), whole-sentence ``decode`` and ``teacher_force``
(``inference``), and what they return (``trace``; ``trace_files`` writes it as JSON and
``.npz``). The interventions a run carries (``interventions``, with ``head_means`` for mean
ablation) are here, below ``analysis``, because every run takes them as values and its trace
records them. Above ``data`` and ``io``.
"""
