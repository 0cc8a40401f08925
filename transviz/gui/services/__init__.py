"""What the window runs on that is not drawn: long work off the GUI thread (``workers``,
``background``, ``training_worker``, ``lab_runs``, ``batch_translator``), the
explorer's decoding session as Qt signals (``session``, ``intervention_list``, ``observe``), the
settings and what the window remembers (``settings``, ``ini_scan``, ``window_memory``), the
interface language and the core's messages in it (``language``, ``core_messages``, ``fonts``),
the look (``theme``), files opened, dropped, saved and exported (``files``, ``drops``,
``export``), the screen's room (``screen_fit``) and the help texts (``help_texts``). Imports only
``style`` from the GUI.
"""
