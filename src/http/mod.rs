//! The HTTP layer: the acceptor and worker pool (`server`), THE route table
//! (`router`), the request view and the reply. It turns requests into handler calls
//! and errors into `{error, message}` bodies; it holds no domain logic.

pub mod auth;
pub mod framing;
pub mod ratelimit;
pub mod request;
pub mod response;
pub mod router;
pub mod server;
pub mod warden;

pub use request::Req;
pub use response::Reply;
pub use router::Ctx;
