//! The one integration test binary: every test runs the real `ludotheque` binary.

mod access;
mod api;
mod architecture;
mod browser;
mod convert;
mod dedupe;
mod foundation;
mod hardening;
mod harness;
mod library;
mod man;
mod organize;
mod push;
mod reliability;
mod scripts;
mod shop;
mod titles;
mod trash;
mod upkeep;
mod watch;
mod web;
mod web_device;
mod web_device_browser;
