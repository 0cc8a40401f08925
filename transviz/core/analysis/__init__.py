"""Looking inside a trained model: head importance and pruning curves (``head_importance``), what
the unmodified model would have written (``unmodified``), the arithmetic of one attention row
step by step (``walkthrough``), the Concepts tab's numbers (``concepts``), summaries and rollout
of many maps (``aggregate``), comparisons of runs and snapshots (``compare``), the Why tab's
demonstrations (``why_scale``, ``why_positions``), the masks tab's batch (``mask_batch``) and
area-averaged shrinking of a map for drawing (``resample``). Above ``training``, because
comparisons read a run's snapshots and importance uses the evaluator.
"""
