"""IBM MQ SMF 115/116: binary decoder (``binary``, kind ``smf_mq``) and mq-smf-csv output
loader (``csv_loader``, kind ``smf_csv``), sharing the field tables (``structures``) and the
landing tables (``tables``). One concern per module: ``reader`` (records from a dump),
``records`` (sections of a record), ``decode`` (compiled field decoders), ``convert`` (STCK,
EBCDIC, SMF dates). The reverse (encoders, for tests and the generator) is ``mqcap.synth``.
"""
