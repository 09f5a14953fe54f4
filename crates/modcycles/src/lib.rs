//! # modcycles — module import cycles of a crate
//!
//! "No module imports a module that imports it back" (the developers' guide) as a check
//! that can fail: [`crate_graph`] reads a crate's module tree from its root file
//! (`src/lib.rs`, `src/main.rs`) through its `mod` declarations, and the paths each module
//! uses; [`cycles`] returns the strongly connected components of more than one module.
//! The workspace test (`tests/workspace.rs`) runs it over every crate.
//!
//! What counts as "module A imports module B": any path in A's code — in a `use`
//! declaration (braces expanded) or in an expression or type — that starts with `crate::`,
//! `super::`, `self::` or the name of one of A's child modules, resolved to the longest
//! prefix that names a module. Paths into items (`crate::Error`, re-exported by the root)
//! are edges to the module holding the item or the re-export. A `mod` declaration is not
//! an import (a parent owns its children without depending on them), and neither are
//! comments, doc links, strings or macro definitions' `$crate`. Inline modules (`mod tests
//! { ... }`) belong to their file: their `super::` paths resolve from the inline module,
//! their edges count as their file's (so a test that reaches a module that imports its
//! file is a cycle too).
//!
//! It is a lexer, not a parser: it understands comments (nested), string, raw-string,
//! byte and char literals, lifetimes, `mod` declarations (with `#[path]` left
//! unsupported: no crate of the workspace uses it) and `use` trees. Cost: linear in the
//! size of the sources, plus Tarjan's algorithm over the module graph.

#![warn(missing_docs)]

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};

/// A module path inside its crate, `crate` for the root (`crate::a::b`).
pub type ModPath = String;

/// A crate's modules (one per file) and the imports between them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Graph {
    /// Module path → its file.
    pub modules: BTreeMap<ModPath, PathBuf>,
    /// Module path → the modules it imports (itself left out).
    pub edges: BTreeMap<ModPath, BTreeSet<ModPath>>,
}

/// Why a crate could not be read.
#[derive(Debug)]
pub enum Error {
    /// A file could not be read.
    Io(PathBuf, std::io::Error),
    /// `mod x;` without `x.rs` or `x/mod.rs`.
    MissingModule {
        /// The declaring file.
        file: PathBuf,
        /// The module declared.
        name: String,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Io(p, e) => write!(f, "{}: {e}", p.display()),
            Error::MissingModule { file, name } => write!(
                f,
                "{}: `mod {name};` has neither {name}.rs nor {name}/mod.rs",
                file.display()
            ),
        }
    }
}

impl std::error::Error for Error {}

/// A token of the lexer: an identifier, `::`, or a punctuation character.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok {
    Ident(String),
    PathSep,
    Punct(char),
}

/// Tokens of Rust source with comments and literals removed.
fn lex(src: &str) -> Vec<Tok> {
    let b: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == '/' && b.get(i + 1) == Some(&'/') {
            while i < b.len() && b[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && b.get(i + 1) == Some(&'*') {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == '/' && b.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if b[i] == '*' && b.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if c == 'r' && (b.get(i + 1) == Some(&'#') || b.get(i + 1) == Some(&'"'))
            || (c == 'b'
                && b.get(i + 1) == Some(&'r')
                && matches!(b.get(i + 2), Some('#') | Some('"')))
        {
            // raw string: r#"..."#
            let mut j = i + if c == 'b' { 2 } else { 1 };
            let mut hashes = 0;
            while b.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if b.get(j) != Some(&'"') {
                // an identifier starting with r (or `r#ident`)
                let (tok, next) = ident(&b, i);
                out.push(tok);
                i = next;
                continue;
            }
            j += 1;
            loop {
                if j >= b.len() {
                    break;
                }
                if b[j] == '"' && (0..hashes).all(|k| b.get(j + 1 + k) == Some(&'#')) {
                    j += 1 + hashes;
                    break;
                }
                j += 1;
            }
            i = j;
        } else if c == '"' || (c == 'b' && b.get(i + 1) == Some(&'"')) {
            let mut j = i + if c == 'b' { 2 } else { 1 };
            while j < b.len() && b[j] != '"' {
                if b[j] == '\\' {
                    j += 1;
                }
                j += 1;
            }
            i = j + 1;
        } else if c == '\'' || (c == 'b' && b.get(i + 1) == Some(&'\'')) {
            // char literal or lifetime
            let j = i + if c == 'b' { 2 } else { 1 };
            if b.get(j) == Some(&'\\') {
                let mut k = j + 1;
                while k < b.len() && b[k] != '\'' {
                    k += 1;
                }
                i = k + 1;
            } else if b.get(j + 1) == Some(&'\'') {
                i = j + 2;
            } else {
                // a lifetime: skip the quote, the identifier follows
                i = j;
                while i < b.len() && (b[i].is_alphanumeric() || b[i] == '_') {
                    i += 1;
                }
            }
        } else if c.is_alphabetic() || c == '_' {
            let (tok, next) = ident(&b, i);
            out.push(tok);
            i = next;
        } else if c == ':' && b.get(i + 1) == Some(&':') {
            out.push(Tok::PathSep);
            i += 2;
        } else if c.is_ascii_digit() {
            while i < b.len() && (b[i].is_alphanumeric() || b[i] == '_' || b[i] == '.') {
                if b[i] == '.' && !b.get(i + 1).is_some_and(char::is_ascii_digit) {
                    break;
                }
                i += 1;
            }
        } else {
            if !c.is_whitespace() {
                out.push(Tok::Punct(c));
            }
            i += 1;
        }
    }
    out
}

/// The identifier starting at `i` (`r#` prefix dropped) and where it ends.
fn ident(b: &[char], mut i: usize) -> (Tok, usize) {
    if b[i] == 'r' && b.get(i + 1) == Some(&'#') {
        i += 2;
    }
    let start = i;
    while i < b.len() && (b[i].is_alphanumeric() || b[i] == '_') {
        i += 1;
    }
    (Tok::Ident(b[start..i].iter().collect()), i)
}

/// A path as written: its segments.
type RawPath = Vec<String>;

/// What one file declares and uses.
#[derive(Debug, Default)]
struct FileScan {
    /// `mod name;` declarations (children in their own files).
    children: Vec<String>,
    /// Inline module names, for resolving `super::` inside them: each path is paired with
    /// the inline modules it sits in.
    paths: Vec<(Vec<String>, RawPath)>,
    /// Inline modules declared, by nesting (their names are child modules too).
    inline: BTreeSet<Vec<String>>,
}

fn scan(src: &str) -> FileScan {
    let toks = lex(src);
    let mut s = FileScan::default();
    let mut stack: Vec<(String, usize)> = Vec::new(); // inline module, brace depth at entry
    let mut depth = 0usize;
    let mut i = 0;
    let inside = |stack: &[(String, usize)]| stack.iter().map(|x| x.0.clone()).collect();
    while i < toks.len() {
        match &toks[i] {
            Tok::Punct('{') => {
                depth += 1;
                i += 1;
            }
            Tok::Punct('}') => {
                depth = depth.saturating_sub(1);
                if stack.last().is_some_and(|(_, d)| *d == depth) {
                    stack.pop();
                }
                i += 1;
            }
            Tok::Punct('$') => {
                // `$crate::...` in a macro: skip the identifier after `$`
                i += 2;
            }
            Tok::Ident(k) if k == "mod" => {
                if let Some(Tok::Ident(name)) = toks.get(i + 1) {
                    match toks.get(i + 2) {
                        Some(Tok::Punct(';')) => s.children.push(name.clone()),
                        Some(Tok::Punct('{')) => {
                            let mut inl: Vec<String> = inside(&stack);
                            inl.push(name.clone());
                            s.inline.insert(inl);
                            stack.push((name.clone(), depth));
                            depth += 1;
                            i += 3;
                            continue;
                        }
                        _ => {}
                    }
                }
                i += 2;
            }
            Tok::Ident(k) if k == "use" => {
                // a use tree up to `;`
                let end = (i..toks.len())
                    .find(|&j| toks[j] == Tok::Punct(';'))
                    .unwrap_or(toks.len());
                let here: Vec<String> = inside(&stack);
                for p in use_tree(&toks[i + 1..end]) {
                    s.paths.push((here.clone(), p));
                }
                i = end + 1;
            }
            Tok::Ident(first) => {
                // a path in code: ident (:: ident)*
                let prev_is_sep = i > 0 && toks[i - 1] == Tok::PathSep;
                let mut p = vec![first.clone()];
                let mut j = i + 1;
                while toks.get(j) == Some(&Tok::PathSep) {
                    match toks.get(j + 1) {
                        Some(Tok::Ident(x)) => {
                            p.push(x.clone());
                            j += 2;
                        }
                        _ => break,
                    }
                }
                if p.len() > 1 && !prev_is_sep {
                    s.paths.push((inside(&stack), p));
                }
                i = j;
            }
            _ => i += 1,
        }
    }
    s
}

/// The paths of a use tree (`a::{b, c::{d, e}}` → `a::b`, `a::c::d`, `a::c::e`; `as`
/// renames and `*` keep their prefix).
fn use_tree(toks: &[Tok]) -> Vec<RawPath> {
    fn walk(toks: &[Tok], i: &mut usize, prefix: &RawPath, out: &mut Vec<RawPath>) {
        let mut cur = prefix.clone();
        while *i < toks.len() {
            match &toks[*i] {
                Tok::Ident(x) if x == "as" => {
                    *i += 2; // the new name
                }
                Tok::Ident(x) => {
                    cur.push(x.clone());
                    *i += 1;
                }
                Tok::PathSep => *i += 1,
                Tok::Punct('{') => {
                    *i += 1;
                    walk(toks, i, &cur, out);
                    // back from the group: the path is consumed
                    cur = prefix.clone();
                }
                Tok::Punct(',') => {
                    if cur.len() > prefix.len() {
                        out.push(std::mem::replace(&mut cur, prefix.clone()));
                    }
                    *i += 1;
                }
                Tok::Punct('}') => {
                    if cur.len() > prefix.len() {
                        out.push(cur);
                    }
                    *i += 1;
                    return;
                }
                Tok::Punct('*') => {
                    *i += 1;
                }
                _ => *i += 1,
            }
        }
        if cur.len() > prefix.len() {
            out.push(cur);
        }
    }
    let mut out = Vec::new();
    let mut i = 0;
    // visibility (`pub`, `pub(crate)`) comes before `use`, never after it
    walk(toks, &mut i, &Vec::new(), &mut out);
    out
}

/// Reads the crate whose root file is `root` (e.g. `src/lib.rs`).
pub fn crate_graph(root: &Path) -> Result<Graph, Error> {
    let mut g = Graph::default();
    // (module path, file, whether the file owns a directory for its children)
    let mut todo = vec![("crate".to_string(), root.to_path_buf(), true)];
    let mut scans: Vec<(ModPath, FileScan)> = Vec::new();
    while let Some((m, file, is_dir_owner)) = todo.pop() {
        let src = std::fs::read_to_string(&file).map_err(|e| Error::Io(file.clone(), e))?;
        let s = scan(&src);
        let dir = if is_dir_owner {
            file.parent().map(Path::to_path_buf).unwrap_or_default()
        } else {
            // a.rs owns the directory a/
            file.with_extension("")
        };
        for c in &s.children {
            let flat = dir.join(format!("{c}.rs"));
            let nested = dir.join(c).join("mod.rs");
            let (path, owner) = if flat.is_file() {
                (flat, false)
            } else if nested.is_file() {
                (nested, true)
            } else {
                return Err(Error::MissingModule {
                    file: file.clone(),
                    name: c.clone(),
                });
            };
            todo.push((format!("{m}::{c}"), path, owner));
        }
        g.modules.insert(m.clone(), file);
        scans.push((m, s));
    }
    // inline modules resolve to their file's module
    for (m, s) in &scans {
        let mut edges = BTreeSet::new();
        let children: BTreeSet<&str> = s.children.iter().map(String::as_str).collect();
        for (inline, p) in &s.paths {
            if let Some(target) = resolve(&g, m, inline, &children, &s.inline, p) {
                if &target != m {
                    edges.insert(target);
                }
            }
        }
        g.edges.insert(m.clone(), edges);
    }
    Ok(g)
}

/// The module a path written in module `m` (inside its inline modules `inline`) names:
/// the longest prefix that is a module (an inline module counting as its file), `None`
/// for a path outside the crate.
fn resolve(
    g: &Graph,
    m: &str,
    inline: &[String],
    children: &BTreeSet<&str>,
    inline_mods: &BTreeSet<Vec<String>>,
    p: &RawPath,
) -> Option<ModPath> {
    let mut here: Vec<String> = m.split("::").map(str::to_string).collect();
    here.extend(inline.iter().cloned());
    let (mut full, rest): (Vec<String>, &[String]) = match p.first().map(String::as_str) {
        Some("crate") => (vec!["crate".into()], &p[1..]),
        Some("self") => (here, &p[1..]),
        Some("super") => {
            let ups = p.iter().take_while(|s| *s == "super").count();
            here.truncate(here.len().saturating_sub(ups));
            (here, &p[ups..])
        }
        // a child module declared in this file's own scope
        Some(first) if inline.is_empty() && children.contains(first) => (here, &p[..]),
        Some(first) => {
            let mut inl = inline.to_vec();
            inl.push(first.to_string());
            // a path into an inline module of this file stays in the file
            return inline_mods.contains(&inl).then(|| m.to_string());
        }
        None => return None,
    };
    full.extend(rest.iter().cloned());
    (1..=full.len())
        .rev()
        .map(|n| full[..n].join("::"))
        .find(|k| g.modules.contains_key(k))
}

/// The cycles of `g`: its strongly connected components of more than one module, each
/// sorted, in order of their first module.
pub fn cycles(g: &Graph) -> Vec<Vec<ModPath>> {
    struct T<'a> {
        g: &'a Graph,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        on: BTreeSet<&'a str>,
        stack: Vec<&'a str>,
        next: usize,
        out: Vec<Vec<ModPath>>,
    }
    fn visit<'a>(t: &mut T<'a>, v: &'a str) {
        t.index.insert(v, t.next);
        t.low.insert(v, t.next);
        t.next += 1;
        t.stack.push(v);
        t.on.insert(v);
        let g = t.g;
        for w in g.edges.get(v).into_iter().flatten() {
            let w = w.as_str();
            if !t.index.contains_key(w) {
                visit(t, w);
                let lw = t.low[w];
                let lv = t.low.get_mut(v).expect("visited");
                *lv = (*lv).min(lw);
            } else if t.on.contains(w) {
                let iw = t.index[w];
                let lv = t.low.get_mut(v).expect("visited");
                *lv = (*lv).min(iw);
            }
        }
        if t.low[v] == t.index[v] {
            let mut comp = Vec::new();
            while let Some(w) = t.stack.pop() {
                t.on.remove(w);
                comp.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                t.out.push(comp);
            }
        }
    }
    let mut t = T {
        g,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        on: BTreeSet::new(),
        stack: Vec::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in g.modules.keys() {
        if !t.index.contains_key(v.as_str()) {
            visit(&mut t, v);
        }
    }
    t.out.sort();
    t.out
}

/// One line per cycle: its modules, and each import inside it (`a -> b`).
pub fn describe(g: &Graph, cycles: &[Vec<ModPath>]) -> String {
    let mut s = String::new();
    for c in cycles {
        s.push_str(&format!("cycle: {}\n", c.join(", ")));
        for a in c {
            for b in g.edges.get(a).into_iter().flatten() {
                if c.contains(b) {
                    s.push_str(&format!("  {a} -> {b} ({})\n", g.modules[a].display()));
                }
            }
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn crate_of(files: &[(&str, &str)]) -> (tempfile_dir::Dir, Graph) {
        let d = tempfile_dir::Dir::new();
        for (p, src) in files {
            let path = d.0.join(p);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, src).unwrap();
        }
        let g = crate_graph(&d.0.join("lib.rs")).unwrap();
        (d, g)
    }

    /// A directory removed on drop (std only).
    mod tempfile_dir {
        pub struct Dir(pub std::path::PathBuf);
        impl Dir {
            pub fn new() -> Dir {
                use std::sync::atomic::{AtomicUsize, Ordering};
                static N: AtomicUsize = AtomicUsize::new(0);
                let p = std::env::temp_dir().join(format!(
                    "modcycles-{}-{}",
                    std::process::id(),
                    N.fetch_add(1, Ordering::SeqCst)
                ));
                std::fs::create_dir_all(&p).unwrap();
                Dir(p)
            }
        }
        impl Drop for Dir {
            fn drop(&mut self) {
                let _ = std::fs::remove_dir_all(&self.0);
            }
        }
    }

    #[test]
    fn a_sibling_cycle_is_found_and_comments_and_strings_are_not_imports() {
        let (_d, g) = crate_of(&[
            ("lib.rs", "pub mod a;\npub mod b;\npub mod c;\n"),
            (
                "a.rs",
                "use crate::b::X;\n// crate::c::Y\nconst S: &str = \"crate::c::Y\";",
            ),
            ("b.rs", "pub struct X; fn f() { crate::a::g(); }"),
            ("c.rs", "/// [`crate::a`]\npub struct Y;"),
        ]);
        assert_eq!(cycles(&g), vec![vec!["crate::a", "crate::b"]]);
        assert!(g.edges["crate::c"].is_empty());
        assert!(describe(&g, &cycles(&g)).contains("crate::a -> crate::b"));
    }

    #[test]
    fn use_trees_super_children_and_inline_tests() {
        let (_d, g) = crate_of(&[
            ("lib.rs", "pub mod p;\npub use p::q::Z;\n"),
            (
                "p/mod.rs",
                "pub mod q;\npub mod r;\nuse self::{q::{Z as W, self}, r::*};\n",
            ),
            (
                "p/q.rs",
                "pub struct Z;\n#[cfg(test)]\nmod tests { use super::*; use super::super::r::T; }",
            ),
            ("p/r.rs", "pub struct T; fn f() -> super::q::Z { todo!() }"),
        ]);
        assert_eq!(
            g.edges["crate::p"],
            ["crate::p::q", "crate::p::r"].map(String::from).into()
        );
        assert_eq!(g.edges["crate"], ["crate::p::q"].map(String::from).into());
        // the test module of q reaches r, which imports q: a cycle
        assert_eq!(
            g.edges["crate::p::q"],
            ["crate::p::r"].map(String::from).into()
        );
        assert_eq!(cycles(&g), vec![vec!["crate::p::q", "crate::p::r"]]);
    }

    #[test]
    fn a_child_using_its_parent_that_uses_it_is_a_cycle() {
        let (_d, g) = crate_of(&[
            ("lib.rs", "mod m;"),
            ("m/mod.rs", "mod k;\npub struct A;\nfn f() { k::g() }"),
            ("m/k.rs", "pub fn g() { let _ = super::A; }"),
        ]);
        assert_eq!(cycles(&g), vec![vec!["crate::m", "crate::m::k"]]);
    }

    #[test]
    fn lexer_skips_literals_and_lifetimes() {
        let toks =
            lex(r##"fn f<'a>(x: &'a str) -> char { let _ = r#"crate::x"#; 'c' } // crate::y"##);
        assert!(!toks.contains(&Tok::Ident("crate".into())));
        assert!(toks.contains(&Tok::Ident("x".into())));
        // a lifetime is not an identifier
        assert!(!toks.contains(&Tok::Ident("a".into())));
    }
}
