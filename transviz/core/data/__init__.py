"""Sentence pairs to train and measure on: the built-in tasks (``tasks``) with their toy grammars
and lexicons (``toy_de_en``, ``toy_zh_en`` and their ``*_lexicon`` modules) and the dates task
(``dates``), parallel corpora read from TSV files (``corpus``), a task's splits as token ids
(``dataset``), padded batches (``batches``) and the held-out pairs a model is measured on
(``held_out``). Above ``model``; ``data`` and ``io`` do not import each other.
"""
