//! Technical details in French. Why a container could not be read, why a convert
//! failed and what the scan noticed about a file are written in English where they
//! are found (`library::containers`, `convert`, `library::probe`), because the API
//! and the log carry them as they are, and the database keeps that text. A French
//! reader gets them through [`detail`]. Every such sentence is a literal of ours, so
//! the table below is complete; a test reads the sources to keep it so.

/// English sentence, French sentence. `{}` stands for one word that is the same in
/// both (a container kind such as PFS0, a file name).
const FRENCH: &[(&str, &str)] = &[
    // What the scan notes about a file.
    ("the container could not be read", "le conteneur est illisible"),
    (
        "no title ID in the file name, and no ticket or CNMT XML inside",
        "aucun identifiant de titre dans le nom du fichier, ni ticket ni CNMT XML dedans",
    ),
    (
        "the file name holds several title IDs; the first was taken",
        "le nom du fichier porte plusieurs identifiants de titre ; le premier a été pris",
    ),
    (
        "the title ID is not one of a game, an update or a DLC",
        "l'identifiant de titre n'est ni celui d'un jeu, ni d'une mise à jour, ni d'un DLC",
    ),
    // Reading a file.
    ("the file is truncated", "le fichier est tronqué"),
    ("the file could not be read", "le fichier n'a pas pu être lu"),
    ("the file could not be opened", "le fichier n'a pas pu être ouvert"),
    // What stands where a game file should be (`library::safe::NotAFile`).
    ("the file is a named pipe (FIFO), not a regular file", "le fichier est un tube nommé (FIFO), pas un fichier ordinaire"),
    ("the file is a socket, not a regular file", "le fichier est une socket, pas un fichier ordinaire"),
    ("the file is a device, not a regular file", "le fichier est un périphérique, pas un fichier ordinaire"),
    ("the file is a folder, not a regular file", "le fichier est un dossier, pas un fichier ordinaire"),
    ("the file is not a regular file", "le fichier n'est pas un fichier ordinaire"),
    // Containers: PFS0, HFS0, the cartridge header.
    ("a {} file name lies outside the string table", "un nom de fichier du {} sort de sa table des noms"),
    ("the {} header is truncated", "l'en-tête {} est tronqué"),
    ("no {} header where one is expected", "pas d'en-tête {} là où il en faut un"),
    ("the {} header declares too many files", "l'en-tête {} déclare trop de fichiers"),
    ("the {} header runs past the end of the file", "l'en-tête {} dépasse la fin du fichier"),
    ("a file offset overflows", "la position d'un fichier déborde"),
    ("a {} file name is too long", "un nom de fichier du {} est trop long"),
    ("a file inside the {} runs past the end of the file", "un fichier du {} dépasse la fin du fichier"),
    ("the file is too short to be a cartridge image", "le fichier est trop court pour être une image de cartouche"),
    ("no cartridge header (HEAD) where one is expected", "pas d'en-tête de cartouche (HEAD) là où il en faut un"),
    // A compressed NCA (NCZ).
    ("the compressed NCA is truncated", "le NCA compressé est tronqué"),
    ("no NCZ section header where one is expected", "pas d'en-tête de sections NCZ là où il en faut un"),
    ("the NCZ section count does not fit in the file", "le nombre de sections NCZ ne tient pas dans le fichier"),
    ("the compressed NCA has no data after its sections", "le NCA compressé n'a pas de données après ses sections"),
    (
        "the compressed NCA has neither a block header nor a zstd stream",
        "le NCA compressé n'a ni en-tête de blocs ni flux zstd",
    ),
    ("the NCZ block header is truncated", "l'en-tête de blocs NCZ est tronqué"),
    ("the NCZ block size is out of range", "la taille des blocs NCZ est hors limites"),
    ("the NCZ block count does not match the declared size", "le nombre de blocs NCZ ne correspond pas à la taille déclarée"),
    ("the NCZ block table runs past the end of the file", "la table des blocs NCZ dépasse la fin du fichier"),
    ("the NCZ blocks run past the end of the file", "les blocs NCZ dépassent la fin du fichier"),
    // What no real file declares (`containers::Budget`, the shared-bytes rule).
    ("a header field lies past the end of its table", "un champ d'en-tête sort de sa table"),
    ("the file's headers list more files than any real file's", "les en-têtes du fichier listent plus de fichiers que ceux d'aucun vrai fichier"),
    ("the file's headers are larger than any real file's", "les en-têtes du fichier sont plus grands que ceux d'aucun vrai fichier"),
    ("two files inside the {} share the same bytes", "deux fichiers du {} partagent les mêmes octets"),
    ("the cartridge's root lists more partitions than a real one has", "la racine de la cartouche liste plus de partitions qu'une vraie n'en a"),
    ("an NCZ section's end overflows", "la fin d'une section NCZ déborde"),
    ("the compressed NCA declares more bytes than its compressed data can hold", "le NCA compressé déclare plus d'octets que ses données compressées n'en peuvent contenir"),
    ("the sizes it declares add up past any disk's", "les tailles qu'il déclare dépassent ensemble celle de tout disque"),
    ("its reading failed on a fault of the reader's; it is set aside as damaged", "sa lecture a échoué sur une faute du lecteur ; il est mis de côté comme endommagé"),
    ("a section's end overflows", "la fin d'une section déborde"),
    (
        "the sections overlap or leave a gap (not sorted and contiguous)",
        "les sections se chevauchent ou laissent un trou (ni triées ni contiguës)",
    ),
    ("the block header's size does not match the sections", "la taille de l'en-tête de blocs ne correspond pas aux sections"),
    (
        "the compressed stream is too short for the sections it declares",
        "le flux compressé est trop court pour les sections qu'il déclare",
    ),
    ("the zstd stream cannot be opened", "le flux zstd ne peut pas être ouvert"),
    ("the zstd stream is corrupt", "le flux zstd est corrompu"),
    ("a block decoder failed", "un décodeur de blocs a échoué"),
    ("a compressed block is larger than its data (corrupt)", "un bloc compressé est plus grand que ses données (corrompu)"),
    ("a zstd block is corrupt", "un bloc zstd est corrompu"),
    ("a zstd block decompressed to the wrong size", "un bloc zstd décompressé n'a pas la bonne taille"),
    // Rebuilding the file.
    ("a partition lists too many files to be rebuilt", "une partition compte trop de fichiers pour être reconstruite"),
    ("the root HFS0 lists too many partitions", "le HFS0 racine compte trop de partitions"),
    (
        "cartridge images with a key area are not supported",
        "les images de cartouche avec une zone de clés ne sont pas prises en charge",
    ),
    (
        "{} does not match its content ID (corrupt or modified); the original was kept",
        "{} ne correspond pas à son identifiant de contenu (corrompu ou modifié) ; l'original a été gardé",
    ),
    ("not a compressed file", "ce n'est pas un fichier compressé"),
    ("the disk is full; the original was kept", "le disque est plein ; l'original a été gardé"),
    (
        "the file size limit was reached; the original was kept",
        "la taille maximale d'un fichier est atteinte ; l'original a été gardé",
    ),
    ("cancelled; the original was kept", "annulée ; l'original a été gardé"),
    (
        "the new file could not be written; the original was kept",
        "le nouveau fichier n'a pas pu être écrit ; l'original a été gardé",
    ),
    ("the console keys do not open it", "les clés de console ne l'ouvrent pas"),
    // Compressing (`convert::compress`, `convert::compress_one`).
    ("the block size is out of range", "la taille des blocs est hors limites"),
    ("only .nsp and .xci files are compressed", "seuls les fichiers .nsp et .xci se compressent"),
    ("the NCA has too many blocks", "le NCA a trop de blocs"),
    ("a compressing thread stopped", "un fil de compression s'est arrêté"),
    // Reading a file with the console keys (`library::switchfs`, `library::probe`).
    ("console keys", "clés de console"),
    ("in {}", "dans {}"),
    ("the keys file has no header_key", "le fichier de clés n'a pas de header_key"),
    ("NCA headers do not decrypt with these keys", "des en-têtes de NCA ne se déchiffrent pas avec ces clés"),
    (
        "{} is missing: a title key cannot be opened",
        "il manque {}\u{a0}: une clé de titre ne peut pas être ouverte",
    ),
    (
        "key revision {} is missing: add its master_key or key_area_key_application",
        "il manque la révision de clés {}\u{a0}: ajoutez sa master_key ou sa key_area_key_application",
    ),
    (
        "the title key of {} is in a personalized ticket (tied to one console), which console keys cannot open",
        "la clé de titre de {} est dans un ticket personnalisé (lié à une console), que les clés de console n'ouvrent pas",
    ),
    ("no ticket for the rights ID of {}", "aucun ticket pour l'identifiant de droits de {}"),
    ("no Meta NCA (no CNMT) inside", "aucun NCA Meta (aucun CNMT) dedans"),
    ("the cartridge image has no secure partition", "l'image de cartouche n'a pas de partition secure"),
    ("the NCA is shorter than its header", "le NCA est plus court que son en-tête"),
    ("a section lies outside the NCA or before its end", "une section sort du NCA ou précède la fin de son en-tête"),
    ("NCA0 headers are not supported", "les en-têtes NCA0 ne sont pas pris en charge"),
    ("the section's encryption is not one this service reads", "le chiffrement de la section n'est pas de ceux que ce service lit"),
    ("its ticket is malformed", "son ticket est mal formé"),
    ("it has no section", "il n'a pas de section"),
    ("its section lies past the end of the file", "sa section dépasse la fin du fichier"),
    (
        "its section is compressed (NCZ); it is read once decompressed",
        "sa section est compressée (NCZ)\u{a0}; elle sera lue une fois décompressée",
    ),
    ("its section is not a {}", "sa section n'est pas un {}"),
    ("its {} lies outside its section", "son {} sort de sa section"),
    ("its PFS0 is too large for a CNMT", "son PFS0 est trop grand pour un CNMT"),
    ("it holds no {}", "il ne contient pas de {}"),
    ("the CNMT is truncated", "le CNMT est tronqué"),
    ("the CNMT lists too many contents", "le CNMT liste trop de contenus"),
    ("the CNMT's content records run past its end", "les entrées de contenu du CNMT dépassent sa fin"),
    ("control.nacp is truncated", "control.nacp est tronqué"),
    ("the RomFS is truncated", "le RomFS est tronqué"),
    ("the RomFS has a table outside it", "le RomFS a une table hors de lui"),
    ("the RomFS has no root directory", "le RomFS n'a pas de dossier racine"),
    ("the RomFS has a file entry outside its table", "le RomFS a une entrée de fichier hors de sa table"),
    ("the RomFS has a file name outside its table", "le RomFS a un nom de fichier hors de sa table"),
    ("the RomFS has a file outside it", "le RomFS a un fichier hors de lui"),
    ("the RomFS has a file list that loops", "le RomFS a une liste de fichiers qui boucle"),
    // Fetching title data (what the source or the network said is kept as it is).
    ("the source answered {}", "la source a répondu {}"),
    ("the file is larger than {} MiB", "le fichier dépasse {} Mio"),
    // Any request to another host (`outbound`).
    ("redirected to another host ({})", "redirigé vers un autre hôte ({})"),
    ("redirected to an address that is not valid", "redirigé vers une adresse qui n'est pas valable"),
    ("more than {} redirects", "plus de {} redirections"),
    ("no complete answer within {} s", "pas de réponse complète en {} s"),
    ("the URL is not valid", "l'adresse n'est pas valable"),
];

/// `en` in French. Sentences of the table are translated whole, "sentence: detail"
/// piece by piece, and several joined by "; " one by one (the longest that is one
/// of ours first: some hold a "; " themselves). Text that is not ours (it never
/// should be) is kept as it is rather than lost.
pub fn detail(en: &str) -> String {
    let parts: Vec<&str> = en.split("; ").collect();
    let mut out = Vec::new();
    let mut at = 0;
    while at < parts.len() {
        let (next, fr) = (at + 1..=parts.len())
            .rev()
            .find_map(|end| sentence(&parts[at..end].join("; ")).map(|fr| (end, fr)))
            .unwrap_or((at + 1, parts[at].to_string()));
        out.push(fr);
        at = next;
    }
    out.join(" ; ")
}

/// One sentence of the table, or one followed by ": " and a detail.
fn sentence(en: &str) -> Option<String> {
    whole(en).or_else(|| {
        let (head, tail) = en.split_once(": ")?;
        Some(format!("{}\u{a0}: {}", whole(head)?, detail(tail)))
    })
}

/// The French of one sentence of the table, its `{}` filled with the same word.
fn whole(en: &str) -> Option<String> {
    FRENCH
        .iter()
        .find_map(|(pattern, fr)| match pattern.split_once("{}") {
            None => (*pattern == en).then(|| fr.to_string()),
            Some((before, after)) => {
                let word = en.strip_prefix(before)?.strip_suffix(after)?;
                (!word.is_empty() && !word.contains(' ')).then(|| fr.replacen("{}", word, 1))
            }
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn composed_details_are_translated_piece_by_piece() {
        assert_eq!(
            detail("the container could not be read: the PFS0 header is truncated"),
            "le conteneur est illisible\u{a0}: l'en-tête PFS0 est tronqué"
        );
        assert_eq!(
            detail("abc.nca does not match its content ID (corrupt or modified); the original was kept"),
            "abc.nca ne correspond pas à son identifiant de contenu (corrompu ou modifié) ; l'original a été gardé"
        );
        assert_eq!(
            detail("the title ID is not one of a game, an update or a DLC; the file name holds several title IDs; the first was taken"),
            "l'identifiant de titre n'est ni celui d'un jeu, ni d'une mise à jour, ni d'un DLC ; le nom du fichier porte plusieurs identifiants de titre ; le premier a été pris"
        );
        assert_eq!(detail("something else"), "something else");
    }

    /// Every English detail the readers and the convert can write, read from their
    /// sources: a new one without French fails here.
    #[test]
    fn every_detail_written_in_the_sources_has_its_french() {
        let files = [
            "src/library/containers.rs",
            "src/library/probe.rs",
            "src/library/switchfs/mod.rs",
            "src/library/switchfs/nca.rs",
            "src/library/switchfs/cnmt.rs",
            "src/library/switchfs/romfs.rs",
            "src/library/switchfs/nacp.rs",
            "src/convert/mod.rs",
            "src/convert/ncz.rs",
            "src/convert/compress.rs",
            "src/convert/compress_one.rs",
            "src/convert/replace.rs",
            "src/titles/fetch.rs",
        ];
        let mut seen = 0;
        for file in files {
            let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
            let source = std::fs::read_to_string(path).unwrap();
            for sentence in details_in(&source) {
                seen += 1;
                // Piece by piece: the French joins pieces with " ; ", so a whole
                // that differs could still hold an English piece.
                let french = detail(&sentence);
                let english: Vec<&str> = sentence.split("; ").collect();
                let left = french.split(" ; ").find(|piece| english.contains(piece));
                assert!(
                    left.is_none(),
                    "no French for {left:?} of {sentence:?} ({file})"
                );
            }
        }
        assert!(
            seen > 40,
            "only {seen} details found: has the source's shape changed?"
        );
    }

    /// The string literals that start a detail: the argument of `bad(`,
    /// `FormatError(`, `fail(`, `notes.push(` and the title fetch's `down(` and
    /// `Err(` (through `format!(`), and the arms of `write_reason`. Each `{…}`
    /// becomes a sample word.
    fn details_in(source: &str) -> Vec<String> {
        let mut out = Vec::new();
        let openers = [
            "bad(",
            "FormatError(",
            "fail(\"",
            "failed(\"",
            "notes.push(",
            "=> \"",
            "down(name, ",
            "return Err(format!(",
            "malformed(",
            "let why = ",
            "Malformed(",
            "Unsupported(",
            "Err(\"",
        ];
        for opener in openers {
            for (at, _) in source.match_indices(opener) {
                let rest = source[at + opener.len()..].trim_start();
                let rest = rest.strip_prefix("format!(").unwrap_or(rest).trim_start();
                let rest = if opener.ends_with('"') {
                    rest
                } else {
                    rest.strip_prefix('"').unwrap_or("")
                };
                let Some(end) = rest.find('"') else { continue };
                let literal = &rest[..end];
                if literal.is_empty()
                    || (opener == "=> \"" && !literal.contains("original was kept"))
                {
                    continue;
                }
                out.push(sample(literal));
            }
        }
        out
    }

    fn sample(literal: &str) -> String {
        let mut out = String::new();
        let mut rest = literal;
        while let Some((before, after)) = rest.split_once('{') {
            out.push_str(before);
            out.push_str("PFS0");
            rest = after.split_once('}').map_or("", |(_, a)| a);
        }
        out.push_str(rest);
        out.trim_end_matches(".into()").to_string()
    }
}
