"""Synthetic raw inputs: encoders that write what the parsers read, for the generator and tests.

The inverse of ``mqcap.parsers``: ``smf_mq`` builds MQ SMF 115/116 records from the decoder's
own field tables, ``smf_zos`` builds SMF 30/70-2/72-3 records from the z/OS layouts. Ingest
never imports this package (parsers only parse).

Example:
    from mqcap.synth.smf_mq import write_dump
"""
