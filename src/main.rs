//! The `ludotheque` binary: parse, start logging, run, print one error.

use std::process::ExitCode;

use clap::Parser;
use ludotheque::cli;

fn main() -> ExitCode {
    let args = cli::Args::parse();
    cli::init_logging(&args);
    match cli::run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            log::error!("{e}");
            eprintln!("{}", ludotheque::text::printable(&cli::french(&e)));
            ExitCode::FAILURE
        }
    }
}
