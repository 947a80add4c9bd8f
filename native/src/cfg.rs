//! A function's control-flow graph, and what structured Rust needs from it.
//!
//! The generated code has no program counter: a function is written as nested Rust
//! `loop`s and labelled blocks (the translation of a reducible control-flow graph to
//! structured control flow in N. Ramsey, "Beyond Relooper", ICFP 2022). This module
//! finds the basic blocks, their successors, a reverse postorder, the dominator tree,
//! the loop headers (targets of back edges) and the merge nodes (blocks with two or more
//! forward predecessors), and says whether the graph is reducible: compiled `.ks` code
//! always is, and a graph that were not would keep the `match` on a program counter.

/// The control-flow graph of one function's bytecode.
#[derive(Debug)]
pub struct Cfg {
    /// Each block's first instruction, in code order.
    pub starts: Vec<usize>,
    /// Each block's successors, as block indices (`EXIT`: past the last instruction,
    /// which returns `Nil`), without repeats.
    #[cfg_attr(not(test), allow(dead_code))]
    pub succ: Vec<Vec<usize>>,
    /// Blocks in reverse postorder from block 0 (unreachable blocks left out).
    #[cfg_attr(not(test), allow(dead_code))]
    pub rpo: Vec<usize>,
    /// Each block's position in `rpo` (`usize::MAX` when unreachable).
    pub rpo_num: Vec<usize>,
    /// Each reachable block's immediate dominator (block 0 its own).
    #[cfg_attr(not(test), allow(dead_code))]
    pub idom: Vec<usize>,
    /// Each block's children in the dominator tree.
    pub children: Vec<Vec<usize>>,
    /// Targets of back edges.
    pub loop_header: Vec<bool>,
    /// Blocks with two or more forward predecessors.
    pub merge: Vec<bool>,
    /// Every back edge goes to a block that dominates its source.
    pub reducible: bool,
}

/// The successor standing for "past the end of the code".
pub const EXIT: usize = usize::MAX;

impl Cfg {
    /// The graph of code of `n` instructions whose block starts are `starts` (sorted,
    /// beginning with 0), where `succ_pcs(b)` gives block `b`'s successors as
    /// instruction indices (`n` or more: past the end).
    pub fn new(n: usize, starts: Vec<usize>, succ_pcs: impl Fn(usize) -> Vec<usize>) -> Cfg {
        let nb = starts.len();
        let block_of = |pc: usize| -> usize {
            if pc >= n {
                EXIT
            } else {
                starts.binary_search(&pc).unwrap_or(EXIT)
            }
        };
        let succ: Vec<Vec<usize>> = (0..nb)
            .map(|b| {
                let mut s: Vec<usize> = Vec::new();
                for pc in succ_pcs(b) {
                    let t = block_of(pc);
                    if !s.contains(&t) {
                        s.push(t);
                    }
                }
                s
            })
            .collect();
        // Postorder by an explicit stack (functions can be long).
        let mut post = Vec::with_capacity(nb);
        let mut seen = vec![false; nb];
        if nb > 0 {
            let mut stack: Vec<(usize, usize)> = vec![(0, 0)];
            seen[0] = true;
            while let Some(top) = stack.last_mut() {
                let (b, i) = *top;
                if let Some(&s) = succ[b].get(i) {
                    top.1 += 1;
                    if s != EXIT && !seen[s] {
                        seen[s] = true;
                        stack.push((s, 0));
                    }
                } else {
                    post.push(b);
                    stack.pop();
                }
            }
        }
        let rpo: Vec<usize> = post.iter().rev().copied().collect();
        let mut rpo_num = vec![usize::MAX; nb];
        for (i, &b) in rpo.iter().enumerate() {
            rpo_num[b] = i;
        }
        let mut preds: Vec<Vec<usize>> = vec![Vec::new(); nb];
        for &b in &rpo {
            for &s in &succ[b] {
                if s != EXIT {
                    preds[s].push(b);
                }
            }
        }
        // Dominators (Cooper, Harvey and Kennedy's iteration over the reverse postorder).
        let mut idom = vec![usize::MAX; nb];
        if nb > 0 {
            idom[0] = 0;
        }
        let intersect = |idom: &[usize], mut a: usize, mut b: usize| -> usize {
            while a != b {
                while rpo_num[a] > rpo_num[b] {
                    a = idom[a];
                }
                while rpo_num[b] > rpo_num[a] {
                    b = idom[b];
                }
            }
            a
        };
        let mut changed = true;
        while changed {
            changed = false;
            for &b in rpo.iter().skip(1) {
                let mut new = usize::MAX;
                for &p in &preds[b] {
                    if idom[p] == usize::MAX {
                        continue;
                    }
                    new = if new == usize::MAX { p } else { intersect(&idom, p, new) };
                }
                if new != usize::MAX && idom[b] != new {
                    idom[b] = new;
                    changed = true;
                }
            }
        }
        let mut children = vec![Vec::new(); nb];
        for &b in rpo.iter().skip(1) {
            if idom[b] != usize::MAX {
                children[idom[b]].push(b);
            }
        }
        let dominates = |a: usize, mut b: usize| -> bool {
            loop {
                if a == b {
                    return true;
                }
                if b == 0 || idom[b] == usize::MAX {
                    return false;
                }
                b = idom[b];
            }
        };
        let mut loop_header = vec![false; nb];
        let mut forward = vec![0usize; nb];
        let mut reducible = true;
        for &b in &rpo {
            for &s in &succ[b] {
                if s == EXIT {
                    continue;
                }
                if rpo_num[s] <= rpo_num[b] {
                    loop_header[s] = true;
                    reducible &= dominates(s, b);
                } else {
                    forward[s] += 1;
                }
            }
        }
        let merge = forward.iter().map(|&k| k >= 2).collect();
        Cfg { starts, succ, rpo, rpo_num, idom, children, loop_header, merge, reducible }
    }

    /// Is the edge from block `from` to block `to` a back edge (to a loop header)?
    pub fn is_back_edge(&self, from: usize, to: usize) -> bool {
        to != EXIT && self.rpo_num[to] <= self.rpo_num[from]
    }

    /// The merge nodes among `b`'s dominator-tree children, the latest in reverse
    /// postorder first (the outermost labelled block).
    pub fn merge_children(&self, b: usize) -> Vec<usize> {
        let mut ys: Vec<usize> = self.children[b].iter().copied().filter(|&y| self.merge[y]).collect();
        ys.sort_by_key(|&y| std::cmp::Reverse(self.rpo_num[y]));
        ys
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A graph given as successor lists of blocks that are one instruction each.
    fn graph(succ: &[&[usize]]) -> Cfg {
        let n = succ.len();
        let lists: Vec<Vec<usize>> = succ.iter().map(|s| s.to_vec()).collect();
        Cfg::new(n, (0..n).collect(), |b| lists[b].clone())
    }

    #[test]
    fn a_diamond_has_one_merge_node_and_no_loop() {
        // 0 -> 1, 2; 1 -> 3; 2 -> 3; 3 -> exit
        let g = graph(&[&[1, 2], &[3], &[3], &[4]]);
        assert!(g.reducible);
        assert_eq!(g.merge, [false, false, false, true]);
        assert_eq!(g.loop_header, [false; 4]);
        assert_eq!(g.idom, [0, 0, 0, 0]);
        assert_eq!(g.merge_children(0), [3]);
        assert_eq!(g.succ[3], [EXIT]);
    }

    #[test]
    fn a_while_loop_has_its_header_and_exit() {
        // 0 -> 1; 1 -> 2, 3 (test); 2 -> 1 (body, back edge); 3 -> exit
        let g = graph(&[&[1], &[2, 3], &[1], &[4]]);
        assert!(g.reducible);
        assert_eq!(g.loop_header, [false, true, false, false]);
        assert!(g.is_back_edge(2, 1));
        assert!(!g.is_back_edge(1, 2));
        assert_eq!(g.merge, [false; 4]);
        assert_eq!(g.idom, [0, 0, 1, 1]);
    }

    #[test]
    fn an_irreducible_graph_is_found() {
        // 0 -> 1, 2; 1 -> 2; 2 -> 1: a loop with two entries.
        let g = graph(&[&[1, 2], &[2], &[1]]);
        assert!(!g.reducible);
    }

    #[test]
    fn unreachable_blocks_are_left_out() {
        let g = graph(&[&[2], &[2], &[3]]);
        assert_eq!(g.rpo, [0, 2]);
        assert_eq!(g.rpo_num[1], usize::MAX);
        assert!(!g.merge[2], "only reachable predecessors count");
    }
}
