//! Unit tests of the lease core: one per rule of spec section 4 and 5.
