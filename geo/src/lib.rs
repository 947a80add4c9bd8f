//! Hex-grid and area-map geometry and search primitives for kriegsspiel.
//!
//! Pure, deterministic and allocation-light building blocks the VM calls many
//! times per game: a flat-topped, column-numbered hex [`Grid`] with printed
//! "CCRR" ids, directions and neighbours, distance, areas, canonical
//! [`Hexside`] ids, exact integer [`line_of_sight`], movement
//! ([`reachable`]) and retreat search ([`retreat`]). Rule details are always
//! supplied by the caller as closures, so one implementation serves every
//! rulebook. Area maps (named areas joined by borders) are a [`Graph`]; the
//! searches run on either kind of map through the [`Topology`] trait.
//!
//! Guarantees: no floating point, no hash-ordered iteration, results in hex
//! index order with ties broken by the lowest index, and no panics: inputs off
//! the grid give `None` or empty results.

mod area;
mod direction;
mod edge;
mod graph;
mod grid;
mod hexside;
mod id;
mod los;
mod reach;
mod retreat;

pub use area::Area;
pub use direction::{opposite, DIRECTIONS, NORTH, NORTH_EAST, NORTH_WEST, SOUTH, SOUTH_EAST, SOUTH_WEST};
pub use edge::Edges;
pub use graph::{Graph, Topology, MAX_AREAS, UNCONNECTED};
pub use grid::{Grid, Hex, Layout};
pub use hexside::Hexside;
pub use id::HexIdDisplay;
pub use los::{line_of_sight, los_trace, walk_line, Los, LosStep};
pub use reach::{
    path_to, reachable, reachable_bounded_into, reachable_bounded_into_heap, reachable_into, Reach, Scratch,
    BUCKET_LIMIT,
};
pub use retreat::{for_each_retreat_path, retreat, RetreatPath, MAX_RETREAT};
