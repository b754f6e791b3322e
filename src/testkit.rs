//! What the integration tests and the benchmarks reach inside the crate, and nothing
//! else: every other module is private to the crate, so the compiler sees dead code.
//! Built only with the `testkit` feature, which only the tests turn on (a
//! dev-dependency of the package on itself); the release binary holds none of it.
//! The generators of files under made-up console keys and of hostile files are
//! fixtures of the tests, in `tests/kit/`.

pub use crate::args::{shown, Args};
pub use crate::error::{Line, Msg};
pub use crate::http::router::Access;
pub use crate::routes::TABLE as ROUTES;

/// The file formats' readers and writers the tests check files with.
pub use crate::convert::{compress, ncz, verify};
pub use crate::error::Reason;
pub use crate::library::switchfs::nacp::LANGUAGES;
pub use crate::library::switchfs::prodkeys::{CHECKSUMS, REVISIONS};
pub use crate::library::{containers, switchfs};
pub use crate::tree::LibraryKey;

/// Convert (NSZ/XCZ back to NSP/XCI) one file into a part file, as the task does.
pub mod convert {
    pub use crate::convert::replace::PartFail;
    pub use crate::convert::{write_part, Options};
}

/// Synthetic Switch files: plain (as the demo makes them), under made-up keys, hostile.
pub use crate::library::synth;

/// The domain's words (tasks, kinds, languages).
pub mod words {
    pub use crate::words::*;
}
