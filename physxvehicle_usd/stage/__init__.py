"""Opening, writing and surveying USD stages: safe opening with one-line errors and atomic writes (`io`), the
collector pause for building large descriptions (`bulk`), JSON-able values as USD takes them (`values`), and which vehicle schemas a stage uses (`schema_usage`)."""
