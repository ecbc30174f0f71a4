"""The records of experiments: conversions of records that older versions of gpubench wrote."""
