//! The library seen as one tree: a game's key (`key`), checked once where it enters,
//! and the folders the tree is made of (`folders`), which say where each key's file
//! lies. Below the configuration, which holds the folders, and below everything that
//! touches a file.

pub mod folders;
pub mod key;

pub use folders::Folders;
pub use key::LibraryKey;
