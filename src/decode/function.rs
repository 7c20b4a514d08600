//! Function-body decoding.
