"""One module per sub-command of ``transviz``. Each defines ``register(commands)``, which adds
its parser to the argparse sub-parsers and sets ``func`` (args -> exit code)."""
