//! ABI verifier (in progress).
