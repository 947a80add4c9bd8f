//! `completions SHELL` and `manpage [--dir DIR]`: generated from the same clap
//! definitions as the parser, so they cannot drift from it.

use crate::out;
use std::io::Write;
use std::path::Path;

/// Print the completion script for `shell` on standard output.
pub(crate) fn completions(shell: clap_complete::Shell, cmd: &mut clap::Command) -> u8 {
    let mut buf = Vec::new();
    clap_complete::generate(shell, cmd, "kriegsspiel", &mut buf);
    match out(&String::from_utf8_lossy(&buf)) {
        Ok(()) => 0,
        Err(code) => code,
    }
}

/// Print the main manual page, or write one page per command into `dir`.
pub(crate) fn manpages(dir: Option<&Path>, cmd: clap::Command) -> u8 {
    let Some(dir) = dir else {
        let mut buf = Vec::new();
        if let Err(e) = clap_mangen::Man::new(cmd).render(&mut buf) {
            say!("error[E0702]: cannot render the manual page: {e}");
            return 2;
        }
        return match out(&String::from_utf8_lossy(&buf)) {
            Ok(()) => 0,
            Err(code) => code,
        };
    };
    if let Err(e) = std::fs::create_dir_all(dir) {
        say!("error[E0702]: cannot create {}: {e}", dir.display());
        return 2;
    }
    let mut pages = vec![("kriegsspiel".to_string(), cmd.clone())];
    for sub in cmd.get_subcommands() {
        if sub.get_name() != "help" {
            let name = format!("kriegsspiel-{}", sub.get_name());
            // clap wants a 'static name (its "string" feature is off); a few bytes, once.
            let page = sub.clone().name(&*Box::leak(name.clone().into_boxed_str()));
            pages.push((name, page));
        }
    }
    for (name, page) in pages {
        let mut buf = Vec::new();
        let path = dir.join(format!("{name}.1"));
        let written = clap_mangen::Man::new(page)
            .render(&mut buf)
            .and_then(|_| std::fs::File::create(&path).and_then(|mut f| f.write_all(&buf)));
        if let Err(e) = written {
            say!("error[E0702]: cannot write {}: {e}", path.display());
            return 2;
        }
    }
    0
}
