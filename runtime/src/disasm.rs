//! Human-readable listing of a program's bytecode (`kriegsspiel disasm`).

use crate::program::Program;
use std::fmt::Write;

/// Every function with its instructions, each annotated with its paragraph.
pub fn disassemble(p: &Program) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "; {} — {} functions, {} constants, {} tables",
        p.title,
        p.functions.len(),
        p.consts.len(),
        p.tables.len()
    );
    for (i, f) in p.functions.iter().enumerate() {
        let _ = writeln!(
            out,
            "\nfn#{i} {} ({:?}, params {}, slots {}) §{}",
            f.name,
            f.kind,
            f.params,
            f.slots,
            p.para(f.para)
        );
        let mut last_para = u16::MAX;
        for (pc, op) in f.code.iter().enumerate() {
            let para = f.paras.get(pc).copied().unwrap_or(f.para);
            let note = if para != last_para { format!("  ; §{}", p.para(para)) } else { String::new() };
            last_para = para;
            let _ = writeln!(out, "  {pc:4}  {op:?}{note}");
        }
    }
    out
}
