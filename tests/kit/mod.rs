//! Test fixtures that are code: the generators of game files under made-up console
//! keys (`keyed`) and of hostile files (`bombs`). They live here, beside the tests and
//! benchmarks that use them, not in `src/`: the product holds none of them. The
//! integration tests (`tests/it/main.rs`) and the benchmarks that need them take this
//! folder in with `#[path = "../kit/mod.rs"] mod kit;`; what they need from the
//! crate's inside comes through `ludotheque::testkit`.
// Each test crate uses a part of the kit: what one does not use is not dead there.
#![allow(dead_code, unused_imports)]

pub mod bombs;
pub mod keyed;
