//! WebDAV's XML (RFC 4918 §14): what `PROPFIND` asks and `PROPPATCH` changes, read
//! with quick-xml's namespace resolution, and the multistatus answers, written here.
//!
//! A property's value is kept as an XML fragment: text escaped, and each element
//! written with its own namespace declared (`<foo xmlns="http://bar"/>`), so that it
//! means the same wherever it is put back. Answers declare `DAV:` under the prefix
//! `D` only, never as the default namespace: a property of no namespace
//! (`xmlns=""`) stays in none.

use quick_xml::escape::escape;
use quick_xml::events::{BytesStart, Event};
use quick_xml::name::ResolveResult;
use quick_xml::NsReader;

use crate::error::{Error, Msg};
use crate::store::dav_props::Prop;

pub const DAV: &str = "DAV:";

fn bad() -> Error {
    Error::invalid(Msg::DavBadXml)
}

/// What a `PROPFIND` asks for.
#[derive(Debug, PartialEq)]
pub enum Want {
    All,
    Names,
    /// These properties: (namespace, name).
    Some(Vec<(String, String)>),
}

/// One change of a `PROPPATCH`, in the order given.
#[derive(Debug, PartialEq)]
pub enum Change {
    Set(Prop),
    Remove { ns: String, name: String },
}

/// An element's namespace and local name; an unknown prefix, or a prefix bound to an
/// empty namespace anywhere in its declarations, is malformed XML.
fn name_of(ns: ResolveResult, e: &BytesStart) -> Result<(String, String), Error> {
    for attr in e.attributes() {
        let attr = attr.map_err(|_| bad())?;
        if attr.key.as_ref().starts_with("xmlns:") && attr.value.is_empty() {
            return Err(bad());
        }
    }
    let ns = match ns {
        ResolveResult::Bound(n) => n.as_ref().to_string(),
        ResolveResult::Unbound => String::new(),
        ResolveResult::Unknown(_) => return Err(bad()),
    };
    let local = e.local_name().as_ref().to_string();
    Ok((ns, local))
}

/// An event of a body: `(namespace, local name, is empty)` for an opening tag.
enum Step {
    Open(String, String, bool),
    Close,
    Other,
    End,
}

fn next(r: &mut NsReader<&[u8]>) -> Result<(Step, Event<'static>), Error> {
    let (ns, event) = r.read_resolved_event().map_err(|_| bad())?;
    let step = match &event {
        Event::Start(e) => {
            let (ns, local) = name_of(ns, e)?;
            Step::Open(ns, local, false)
        }
        Event::Empty(e) => {
            let (ns, local) = name_of(ns, e)?;
            Step::Open(ns, local, true)
        }
        Event::End(_) => Step::Close,
        Event::Eof => Step::End,
        _ => Step::Other,
    };
    Ok((step, event.into_owned()))
}

/// A `PROPFIND` body (none is `allprop`).
pub fn propfind(body: &[u8]) -> Result<Want, Error> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(Want::All);
    }
    let mut r = NsReader::from_reader(body);
    let (mut depth, mut root, mut want, mut in_prop) = (0usize, false, None, false);
    let mut names = Vec::new();
    loop {
        match next(&mut r)?.0 {
            Step::Open(ns, local, empty) => {
                depth += 1;
                let dav = ns == DAV;
                match depth {
                    1 if dav && local == "propfind" => root = true,
                    1 => return Err(bad()),
                    2 if dav && local == "allprop" => want = Some(Want::All),
                    2 if dav && local == "propname" => want = Some(Want::Names),
                    2 if dav && local == "prop" => in_prop = !empty,
                    3 if in_prop => names.push((ns, local)),
                    _ => {}
                }
                if empty {
                    depth -= 1;
                }
            }
            Step::Close => {
                depth = depth.checked_sub(1).ok_or_else(bad)?;
                if depth == 1 {
                    in_prop = false;
                }
            }
            Step::End => break,
            Step::Other => {}
        }
    }
    if depth != 0 || !root {
        return Err(bad());
    }
    Ok(want.unwrap_or(Want::Some(names)))
}

/// A `PROPPATCH` body.
pub fn proppatch(body: &[u8]) -> Result<Vec<Change>, Error> {
    let mut r = NsReader::from_reader(body);
    let (mut depth, mut root, mut setting) = (0usize, false, false);
    let mut changes = Vec::new();
    loop {
        match next(&mut r)?.0 {
            Step::Open(ns, local, empty) => {
                depth += 1;
                let dav = ns == DAV;
                match depth {
                    1 if dav && local == "propertyupdate" => root = true,
                    1 => return Err(bad()),
                    2 if dav && (local == "set" || local == "remove") => setting = local == "set",
                    4 => {
                        let value = if empty {
                            String::new()
                        } else {
                            fragment(&mut r)?
                        };
                        changes.push(if setting {
                            Change::Set(Prop {
                                ns,
                                name: local,
                                value,
                            })
                        } else {
                            Change::Remove { ns, name: local }
                        });
                        // The fragment's reading ended on the property's own end.
                        depth -= 1;
                        continue;
                    }
                    _ => {}
                }
                if empty {
                    depth -= 1;
                }
            }
            Step::Close => depth = depth.checked_sub(1).ok_or_else(bad)?,
            Step::End => break,
            Step::Other => {}
        }
    }
    if depth != 0 || !root {
        return Err(bad());
    }
    Ok(changes)
}

/// The content of an element up to its end, as a fragment (see the module's doc).
fn fragment(r: &mut NsReader<&[u8]>) -> Result<String, Error> {
    let mut out = String::new();
    let mut open: Vec<String> = Vec::new();
    loop {
        let (step, event) = next(r)?;
        match (step, event) {
            (Step::Open(ns, local, empty), _) => {
                out.push_str(&format!("<{local} xmlns=\"{}\"", escape(ns.as_str())));
                if empty {
                    out.push_str("/>");
                } else {
                    out.push('>');
                    open.push(local);
                }
            }
            (Step::Close, _) => match open.pop() {
                Some(local) => out.push_str(&format!("</{local}>")),
                None => return Ok(out),
            },
            (Step::End, _) => return Err(bad()),
            (_, Event::Text(t)) => out.push_str(&escape(t.xml10_content())),
            (_, Event::CData(t)) => out.push_str(&escape(t.xml10_content())),
            (_, Event::GeneralRef(g)) => {
                let text = match g.resolve_char_ref().map_err(|_| bad())? {
                    Some(ch) => ch.to_string(),
                    None => quick_xml::escape::resolve_predefined_entity(&g.xml10_content())
                        .ok_or_else(bad)?
                        .to_string(),
                };
                out.push_str(&escape(text));
            }
            _ => {}
        }
    }
}

/// A property element with its value (`None`: empty, for `propname` and a 404).
pub fn element(ns: &str, name: &str, value: Option<&str>, n: usize) -> String {
    let value = value.unwrap_or("");
    if ns == DAV {
        return format!("<D:{name}>{value}</D:{name}>");
    }
    if ns.is_empty() {
        return format!("<{name} xmlns=\"\">{value}</{name}>");
    }
    format!(
        "<ns{n}:{name} xmlns:ns{n}=\"{}\">{value}</ns{n}:{name}>",
        escape(ns)
    )
}

/// A `<D:propstat>` of these property elements with this status.
pub fn propstat(props: &str, status: &str) -> String {
    format!(
        "<D:propstat><D:prop>{props}</D:prop><D:status>HTTP/1.1 {status}</D:status></D:propstat>"
    )
}

/// A multistatus document of these `<D:response>`s.
pub fn multistatus(responses: &str) -> String {
    format!(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<D:multistatus xmlns:D=\"DAV:\">{responses}</D:multistatus>\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn propfind_bodies_as_litmus_and_clients_send_them() {
        assert_eq!(propfind(b"").unwrap(), Want::All);
        let named = br#"<?xml version="1.0"?><propfind xmlns="DAV:"><prop><getcontentlength/><foo xmlns="http://example.com/neon/litmus/"/></prop></propfind>"#;
        assert_eq!(
            propfind(named).unwrap(),
            Want::Some(vec![
                (DAV.into(), "getcontentlength".into()),
                ("http://example.com/neon/litmus/".into(), "foo".into())
            ])
        );
        let extended = br#"<propfind xmlns="DAV:"><foobar/><allprop/></propfind>"#;
        assert_eq!(propfind(extended).unwrap(), Want::All);
        for bad in [
            &b"<foo>"[..],
            br#"<D:propfind xmlns:D="DAV:"><D:prop><bar:foo xmlns:bar=""/></D:prop></D:propfind>"#,
            br#"<D:propfind xmlns:D="DAV:"><D:prop></D:propfind>"#,
            br#"<x:propfind xmlns:x="other"/>"#,
        ] {
            assert!(propfind(bad).is_err(), "{}", String::from_utf8_lossy(bad));
        }
    }

    #[test]
    fn proppatch_keeps_order_unicode_and_nested_namespaces() {
        let body = br#"<?xml version="1.0"?><D:propertyupdate xmlns:D="DAV:"><D:set><D:prop><t:a xmlns:t="urn:t">x &amp; &#65536;</t:a></D:prop></D:set><D:remove><D:prop><t:a xmlns:t="urn:t"/></D:prop></D:remove><D:set><D:prop><t:v xmlns:t="urn:t"><foo xmlns="http://bar">1</foo></t:v><nonamespace xmlns="">r</nonamespace></D:prop></D:set></D:propertyupdate>"#;
        let changes = proppatch(body).unwrap();
        let set = |ns: &str, name: &str, value: &str| {
            Change::Set(Prop {
                ns: ns.into(),
                name: name.into(),
                value: value.into(),
            })
        };
        assert_eq!(
            changes,
            vec![
                set("urn:t", "a", "x &amp; \u{10000}"),
                Change::Remove {
                    ns: "urn:t".into(),
                    name: "a".into()
                },
                set("urn:t", "v", "<foo xmlns=\"http://bar\">1</foo>"),
                set("", "nonamespace", "r"),
            ]
        );
        assert!(proppatch(b"<D:propertyupdate xmlns:D=\"DAV:\"><D:set>").is_err());
    }
}
