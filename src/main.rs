//! The `ludotheque` binary: parse (help in French), start logging, run, print one error.

use std::process::ExitCode;

use ludotheque::cli;

fn main() -> ExitCode {
    let args = cli::parse();
    cli::init_logging(&args);
    let report = cli::reports_errors(&args);
    match cli::run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            if report {
                cli::report(&e);
            }
            ExitCode::from(cli::exit_code(&e))
        }
    }
}
