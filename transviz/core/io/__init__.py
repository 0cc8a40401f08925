"""Files in and out: transviz checkpoints (``checkpoint``, ``checkpoint_file``: one ``.safetensors``
file, never a pickle, checked before it is used; ``endings`` words how the training run it holds
ended), the check every loaded model passes (``weights_check``), models made elsewhere
(``hf_import`` and ``hf_vocab`` for Hugging Face MarianMT / BART folders, ``torch_import`` for a
plain PyTorch ``nn.Transformer`` with its sidecar), the shipped models and lessons
(``resources``), what a command checks before it writes a file (``outputs``), and
``loading.load_model``, which tells these apart and is ``transviz.load_model``. Above ``model``;
``data`` and ``io`` do not import each other.
"""
