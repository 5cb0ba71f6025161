//! Batch what-if sweeps. Not yet built.
