"""Training and the lab: the trainer (``train``) with its learning-rate schedules
(``schedules``), tested recipes (``recipes``), the device it runs on (``devices``) and
data-parallel runs (``distributed``); what a run records (``curves``, ``snapshots``); held-out
evaluation (``evaluate``: greedy exact match, loss, BLEU); and the lab's seeded sweeps (``lab``).
Above ``decoding``, because evaluation and snapshots decode.
"""
