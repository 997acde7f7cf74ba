"""hl.* as markers: a kernel body is never run by Python."""


def __getattr__(name):
    return lambda *args, **kwargs: None
