//! The `ludotheque` binary: parse, start logging, run, print one error.

use std::process::ExitCode;

use clap::Parser;
use ludotheque::{args::Args, cli};

fn main() -> ExitCode {
    let args = Args::parse();
    cli::init_logging(&args);
    match cli::run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            log::error!("{e}");
            eprintln!("{}", ludotheque::text::printable(&cli::error_line(&e)));
            ExitCode::FAILURE
        }
    }
}
