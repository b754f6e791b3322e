//! The HTTP layer: the acceptor and worker pool (`server`), the route matching
//! (`router`; the table itself is `crate::routes`), the request view and the reply,
//! who is calling (`auth`), and the state every worker shares (`App`). It turns
//! requests into handler calls and errors into `{error, message}` bodies; it holds no
//! domain logic and imports neither `api` nor `web`.

pub mod app;
pub mod auth;
pub mod body;
pub mod cache;
pub mod downloads;
pub mod framing;
pub mod listening;
pub mod multipart;
pub mod params;
pub mod range;
pub mod ratelimit;
pub mod request;
pub mod response;
pub mod router;
pub mod server;
pub mod upload;
pub mod warden;

pub use app::App;
pub use request::Req;
pub use response::Reply;
pub use router::Ctx;
