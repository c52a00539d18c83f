"""Input handling: schema and validation, codes, and the encoded training set."""
