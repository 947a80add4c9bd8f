//! The `kriegsspiel` binary: the command line of `lib.rs` with no rulebook compiled in
//! (a natively built rulebook's binary calls `kriegsspiel::native_main` instead).

fn main() -> std::process::ExitCode {
    kriegsspiel::main()
}
