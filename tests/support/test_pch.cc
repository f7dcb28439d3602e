// The object that carries tests/support/test_pch.h for every test to reuse.
