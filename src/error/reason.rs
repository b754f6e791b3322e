//! Why a file is bad, as data. The readers (`library::containers`, `switchfs`,
//! `probe`), the convert and the title fetch say why something failed with a
//! [`Reason`]: one line of the table below gives its slug, its English and its
//! French, so a reason without French does not compile. The API and the log say it
//! in English (the same sentences as ever), the web pages in the reader's language.
//!
//! A [`Why`] is a reason and what it leads to ("the container could not be read: the
//! PFS0 header is truncated", "console keys: in x.nca: …"); a [`Detail`] is several,
//! one after the other ("…; the file name holds several title IDs; …").
//!
//! What is stored (a game's note, a task's failures, a damage mark) is the slug form,
//! compact and independent of the language:
//!
//! - a reason is its slug, then `:` and its word when it has one: `no_header:PFS0`;
//! - a reason that leads to others has them in parentheses: `unreadable(no_header:PFS0)`,
//!   `console_keys(in:x.nca(nca_short);wrong_keys)`;
//! - a detail's reasons are joined by `;`.
//!
//! In a word, `%`, `;`, `(` and `)` are written `%25`, `%3B`, `%28` and `%29`. Text
//! that reads as no slug is an older database's English (read back through the table,
//! [`Detail::from_english`]) or none of ours (what a network library said): it is
//! kept as it is, [`Reason::Text`], and shown as it is in both languages.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Declares [`Reason`]: the reasons without a word, then those with one word the same
/// in both languages (`{}` in the sentences: a container kind, a file name, a number).
macro_rules! reasons {
    (
        plain { $($p:ident = $ps:literal, $pen:literal, $pfr:literal;)+ }
        worded { $($w:ident = $ws:literal, $wen:literal, $wfr:literal;)+ }
    ) => {
        /// Why something could not be read or made; see the module's table.
        #[derive(Debug, Clone, PartialEq, Eq)]
        pub enum Reason {
            $($p,)+
            $($w(String),)+
            /// Text that is none of ours: an older database's sentence the table does
            /// not hold, or what another library said. Said as it is.
            Text(String),
        }

        impl Reason {
            /// Its slug, English and French (`{}` for the word), and its word.
            fn parts(&self) -> (&'static str, &'static str, &'static str, Option<&str>) {
                match self {
                    $(Reason::$p => ($ps, $pen, $pfr, None),)+
                    $(Reason::$w(word) => ($ws, $wen, $wfr, Some(word.as_str())),)+
                    Reason::Text(text) => (TEXT, "{}", "{}", Some(text.as_str())),
                }
            }

            /// The reason of a slug, with its word when it takes one.
            fn of_slug(slug: &str, word: Option<String>) -> Option<Reason> {
                match (slug, word) {
                    $(($ps, None) => Some(Reason::$p),)+
                    $(($ws, Some(word)) => Some(Reason::$w(word)),)+
                    (TEXT, Some(text)) => Some(Reason::Text(text)),
                    _ => None,
                }
            }

            /// Every reason of the table, a worded one with `word`: an English
            /// sentence is read back by trying each.
            fn table(word: &str) -> Vec<Reason> {
                vec![$(Reason::$p,)+ $(Reason::$w(word.to_string()),)+]
            }
        }
    };
}

/// The slug of a [`Reason::Text`].
const TEXT: &str = "text";

reasons! {
    plain {
        // What the scan notes about a file.
        Unreadable = "unreadable", "the container could not be read", "le conteneur est illisible";
        NoTitleId = "no_title_id", "no title ID in the file name, and no ticket or CNMT XML inside", "aucun identifiant de titre dans le nom du fichier, ni ticket ni CNMT XML dedans";
        SeveralTitleIds = "several_title_ids", "the file name holds several title IDs; the first was taken", "le nom du fichier porte plusieurs identifiants de titre ; le premier a été pris";
        UnknownKind = "unknown_kind", "the title ID is not one of a game, an update or a DLC", "l'identifiant de titre n'est ni celui d'un jeu, ni d'une mise à jour, ni d'un DLC";
        // Reading a file.
        Truncated = "truncated", "the file is truncated", "le fichier est tronqué";
        ReadFailed = "read_failed", "the file could not be read", "le fichier n'a pas pu être lu";
        OpenFailed = "open_failed", "the file could not be opened", "le fichier n'a pas pu être ouvert";
        // What stands where a game file should be (`library::safe::NotAFile`).
        Fifo = "fifo", "the file is a named pipe (FIFO), not a regular file", "le fichier est un tube nommé (FIFO), pas un fichier ordinaire";
        Socket = "socket", "the file is a socket, not a regular file", "le fichier est une socket, pas un fichier ordinaire";
        Device = "device", "the file is a device, not a regular file", "le fichier est un périphérique, pas un fichier ordinaire";
        Folder = "folder", "the file is a folder, not a regular file", "le fichier est un dossier, pas un fichier ordinaire";
        NotRegular = "not_regular", "the file is not a regular file", "le fichier n'est pas un fichier ordinaire";
        // Containers: PFS0, HFS0, the cartridge header.
        OffsetOverflows = "offset_overflows", "a file offset overflows", "la position d'un fichier déborde";
        TooShortForXci = "too_short_for_xci", "the file is too short to be a cartridge image", "le fichier est trop court pour être une image de cartouche";
        NoXciHeader = "no_xci_header", "no cartridge header (HEAD) where one is expected", "pas d'en-tête de cartouche (HEAD) là où il en faut un";
        // A compressed NCA (NCZ).
        NczTruncated = "ncz_truncated", "the compressed NCA is truncated", "le NCA compressé est tronqué";
        NoNczSections = "no_ncz_sections", "no NCZ section header where one is expected", "pas d'en-tête de sections NCZ là où il en faut un";
        NczSectionCount = "ncz_section_count", "the NCZ section count does not fit in the file", "le nombre de sections NCZ ne tient pas dans le fichier";
        NczNoData = "ncz_no_data", "the compressed NCA has no data after its sections", "le NCA compressé n'a pas de données après ses sections";
        NczNoStream = "ncz_no_stream", "the compressed NCA has neither a block header nor a zstd stream", "le NCA compressé n'a ni en-tête de blocs ni flux zstd";
        NczBlockHeaderTruncated = "ncz_block_header_truncated", "the NCZ block header is truncated", "l'en-tête de blocs NCZ est tronqué";
        NczBlockSize = "ncz_block_size", "the NCZ block size is out of range", "la taille des blocs NCZ est hors limites";
        NczBlockCount = "ncz_block_count", "the NCZ block count does not match the declared size", "le nombre de blocs NCZ ne correspond pas à la taille déclarée";
        NczBlockTable = "ncz_block_table", "the NCZ block table runs past the end of the file", "la table des blocs NCZ dépasse la fin du fichier";
        NczBlocksPastEnd = "ncz_blocks_past_end", "the NCZ blocks run past the end of the file", "les blocs NCZ dépassent la fin du fichier";
        // What no real file declares (`containers::Budget`, the shared-bytes rule).
        FieldPastTable = "field_past_table", "a header field lies past the end of its table", "un champ d'en-tête sort de sa table";
        TooManyEntries = "too_many_entries", "the file's headers list more files than any real file's", "les en-têtes du fichier listent plus de fichiers que ceux d'aucun vrai fichier";
        TooManyHeaderBytes = "too_many_header_bytes", "the file's headers are larger than any real file's", "les en-têtes du fichier sont plus grands que ceux d'aucun vrai fichier";
        TooManyPartitions = "too_many_partitions", "the cartridge's root lists more partitions than a real one has", "la racine de la cartouche liste plus de partitions qu'une vraie n'en a";
        NczSectionOverflows = "ncz_section_overflows", "an NCZ section's end overflows", "la fin d'une section NCZ déborde";
        NczImplausible = "ncz_implausible", "the compressed NCA declares more bytes than its compressed data can hold", "le NCA compressé déclare plus d'octets que ses données compressées n'en peuvent contenir";
        SizesPastDisk = "sizes_past_disk", "the sizes it declares add up past any disk's", "les tailles qu'il déclare dépassent ensemble celle de tout disque";
        ReaderFailed = "reader_failed", "its reading failed on a fault of the reader's; it is set aside as damaged", "sa lecture a échoué sur une faute du lecteur ; il est mis de côté comme endommagé";
        // Decompressing an NCZ.
        SectionOverflows = "section_overflows", "a section's end overflows", "la fin d'une section déborde";
        SectionsNotContiguous = "sections_not_contiguous", "the sections overlap or leave a gap (not sorted and contiguous)", "les sections se chevauchent ou laissent un trou (ni triées ni contiguës)";
        BlockHeaderSize = "block_header_size", "the block header's size does not match the sections", "la taille de l'en-tête de blocs ne correspond pas aux sections";
        StreamTooShort = "stream_too_short", "the compressed stream is too short for the sections it declares", "le flux compressé est trop court pour les sections qu'il déclare";
        ZstdUnopened = "zstd_unopened", "the zstd stream cannot be opened", "le flux zstd ne peut pas être ouvert";
        ZstdCorrupt = "zstd_corrupt", "the zstd stream is corrupt", "le flux zstd est corrompu";
        DecoderFailed = "decoder_failed", "a block decoder failed", "un décodeur de blocs a échoué";
        BlockLarger = "block_larger", "a compressed block is larger than its data (corrupt)", "un bloc compressé est plus grand que ses données (corrompu)";
        ZstdBlockCorrupt = "zstd_block_corrupt", "a zstd block is corrupt", "un bloc zstd est corrompu";
        ZstdBlockSize = "zstd_block_size", "a zstd block decompressed to the wrong size", "un bloc zstd décompressé n'a pas la bonne taille";
        // Rebuilding the file.
        PartitionTooLarge = "partition_too_large", "a partition lists too many files to be rebuilt", "une partition compte trop de fichiers pour être reconstruite";
        RootTooLarge = "root_too_large", "the root HFS0 lists too many partitions", "le HFS0 racine compte trop de partitions";
        KeyArea = "key_area", "cartridge images with a key area are not supported", "les images de cartouche avec une zone de clés ne sont pas prises en charge";
        NotCompressed = "not_compressed", "not a compressed file", "ce n'est pas un fichier compressé";
        DiskFull = "disk_full", "the disk is full; the original was kept", "le disque est plein ; l'original a été gardé";
        FileSizeLimit = "file_size_limit", "the file size limit was reached; the original was kept", "la taille maximale d'un fichier est atteinte ; l'original a été gardé";
        CancelledKept = "cancelled_kept", "cancelled; the original was kept", "annulée ; l'original a été gardé";
        WriteFailed = "write_failed", "the new file could not be written; the original was kept", "le nouveau fichier n'a pas pu être écrit ; l'original a été gardé";
        KeysDoNotOpen = "keys_do_not_open", "the console keys do not open it", "les clés de console ne l'ouvrent pas";
        // Compressing (`convert::compress`, `convert::compress_one`).
        BlockSize = "block_size", "the block size is out of range", "la taille des blocs est hors limites";
        NotCompressible = "not_compressible", "only .nsp and .xci files are compressed", "seuls les fichiers .nsp et .xci se compressent";
        TooManyBlocks = "too_many_blocks", "the NCA has too many blocks", "le NCA a trop de blocs";
        ThreadStopped = "thread_stopped", "a compressing thread stopped", "un fil de compression s'est arrêté";
        // Reading a file with the console keys (`library::switchfs`, `library::probe`).
        ConsoleKeys = "console_keys", "console keys", "clés de console";
        NoHeaderKey = "no_header_key", "the keys file has no header_key", "le fichier de clés n'a pas de header_key";
        WrongKeys = "wrong_keys", "NCA headers do not decrypt with these keys", "des en-têtes de NCA ne se déchiffrent pas avec ces clés";
        NoMeta = "no_meta", "no Meta NCA (no CNMT) inside", "aucun NCA Meta (aucun CNMT) dedans";
        NoSecure = "no_secure", "the cartridge image has no secure partition", "l'image de cartouche n'a pas de partition secure";
        NcaShort = "nca_short", "the NCA is shorter than its header", "le NCA est plus court que son en-tête";
        SectionOutside = "section_outside", "a section lies outside the NCA or before its end", "une section sort du NCA ou précède la fin de son en-tête";
        Nca0 = "nca0", "NCA0 headers are not supported", "les en-têtes NCA0 ne sont pas pris en charge";
        Encryption = "encryption", "the section's encryption is not one this service reads", "le chiffrement de la section n'est pas de ceux que ce service lit";
        TicketMalformed = "ticket_malformed", "its ticket is malformed", "son ticket est mal formé";
        NoSection = "no_section", "it has no section", "il n'a pas de section";
        SectionPastEnd = "section_past_end", "its section lies past the end of the file", "sa section dépasse la fin du fichier";
        SectionCompressed = "section_compressed", "its section is compressed (NCZ); it is read once decompressed", "sa section est compressée (NCZ)\u{a0}; elle sera lue une fois décompressée";
        CnmtTooLarge = "cnmt_too_large", "its PFS0 is too large for a CNMT", "son PFS0 est trop grand pour un CNMT";
        CnmtTruncated = "cnmt_truncated", "the CNMT is truncated", "le CNMT est tronqué";
        CnmtTooMany = "cnmt_too_many", "the CNMT lists too many contents", "le CNMT liste trop de contenus";
        CnmtRecords = "cnmt_records", "the CNMT's content records run past its end", "les entrées de contenu du CNMT dépassent sa fin";
        NacpTruncated = "nacp_truncated", "control.nacp is truncated", "control.nacp est tronqué";
        RomfsTruncated = "romfs_truncated", "the RomFS is truncated", "le RomFS est tronqué";
        RomfsTable = "romfs_table", "the RomFS has a table outside it", "le RomFS a une table hors de lui";
        RomfsNoRoot = "romfs_no_root", "the RomFS has no root directory", "le RomFS n'a pas de dossier racine";
        RomfsEntry = "romfs_entry", "the RomFS has a file entry outside its table", "le RomFS a une entrée de fichier hors de sa table";
        RomfsName = "romfs_name", "the RomFS has a file name outside its table", "le RomFS a un nom de fichier hors de sa table";
        RomfsFile = "romfs_file", "the RomFS has a file outside it", "le RomFS a un fichier hors de lui";
        RomfsLoop = "romfs_loop", "the RomFS has a file list that loops", "le RomFS a une liste de fichiers qui boucle";
        // Reading title data (`titles::versions`, `titles::json`): after a line.
        NotThreeFields = "not_three_fields", "not three fields separated by |", "pas trois champs séparés par |";
        InvalidUtf8 = "invalid_utf8", "invalid UTF-8", "UTF-8 invalide";
        ReadError = "read_error", "read error", "erreur de lecture";
        EndOfFile = "end_of_file", "the file ends too early", "le fichier s'arrête trop tôt";
        TrailingCharacters = "trailing_characters", "trailing characters", "des caractères après la fin";
        InvalidEscape = "invalid_escape", "invalid escape", "échappement invalide";
        ExpectedValue = "expected_value", "expected a value", "une valeur était attendue";
        ExpectedNumber = "expected_number", "expected a number", "un nombre était attendu";
        ExpectedCommaOrBrace = "expected_comma_or_brace", "expected ',' or '}'", "',' ou '}' était attendu";
        ExpectedCommaOrBracket = "expected_comma_or_bracket", "expected ',' or ']'", "',' ou ']' était attendu";
        ExpectedCommaOrClosing = "expected_comma_or_closing", "expected ',' or a closing bracket", "',' ou un crochet fermant était attendu";
        // Fetching title data.
        KeptCopyGone = "kept_copy_gone", "the kept copy is gone", "la copie gardée a disparu";
        NotTitleData = "not_title_data", "the answer is not a title data file", "la réponse n'est pas un fichier de données de titres";
        // Any request to another host (`outbound`).
        RedirectInvalid = "redirect_invalid", "redirected to an address that is not valid", "redirigé vers une adresse qui n'est pas valable";
        UrlInvalid = "url_invalid", "the URL is not valid", "l'adresse n'est pas valable";
        NoInternet = "no_internet", "the server's name could not be found: no Internet access, or a misspelt name?", "le nom du serveur est introuvable : pas d'accès à Internet, ou un nom mal écrit ?";
        NoAnswerInTime = "no_answer_in_time", "the server did not answer in time", "le serveur n'a pas répondu à temps";
        NoRoute = "no_route", "no route to the server: is this machine connected to the network?", "aucune route vers le serveur : cette machine est-elle connectée au réseau ?";
        ConnectionRefused = "connection_refused", "the server refused the connection", "le serveur a refusé la connexion";
        ConnectFailed = "connect_failed", "could not connect to the server", "impossible de se connecter au serveur";
        ConnectionCut = "connection_cut", "the connection was cut", "la connexion a été coupée";
        TlsFailed = "tls_failed", "the secure connection (TLS) failed", "la connexion sécurisée (TLS) a échoué";
    }
    worded {
        // A name alone, before what it leads to: an NCA's (`x.nca: …`), a key
        // revision (`0x05`).
        Name = "name", "{}", "{}";
        // Containers: the word is the kind (PFS0, HFS0).
        NameOutside = "name_outside", "a {} file name lies outside the string table", "un nom de fichier du {} sort de sa table des noms";
        HeaderTruncated = "header_truncated", "the {} header is truncated", "l'en-tête {} est tronqué";
        NoHeader = "no_header", "no {} header where one is expected", "pas d'en-tête {} là où il en faut un";
        TooManyFiles = "too_many_files", "the {} header declares too many files", "l'en-tête {} déclare trop de fichiers";
        HeaderPastEnd = "header_past_end", "the {} header runs past the end of the file", "l'en-tête {} dépasse la fin du fichier";
        NameTooLong = "name_too_long", "a {} file name is too long", "un nom de fichier du {} est trop long";
        FilePastEnd = "file_past_end", "a file inside the {} runs past the end of the file", "un fichier du {} dépasse la fin du fichier";
        SharedBytes = "shared_bytes", "two files inside the {} share the same bytes", "deux fichiers du {} partagent les mêmes octets";
        // Rebuilding: the word is an NCA's name.
        ContentIdMismatch = "content_id_mismatch", "{} does not match its content ID (corrupt or modified); the original was kept", "{} ne correspond pas à son identifiant de contenu (corrompu ou modifié) ; l'original a été gardé";
        // With the console keys: the word is an NCA's name, a key's, a revision.
        In = "in", "in {}", "dans {}";
        MissingTitlekek = "missing_titlekek", "{} is missing: a title key cannot be opened", "il manque {}\u{a0}: une clé de titre ne peut pas être ouverte";
        MissingRevision = "missing_revision", "key revision {} is missing: add its master_key or key_area_key_application", "il manque la révision de clés {}\u{a0}: ajoutez sa master_key ou sa key_area_key_application";
        Personalized = "personalized", "the title key of {} is in a personalized ticket (tied to one console), which console keys cannot open", "la clé de titre de {} est dans un ticket personnalisé (lié à une console), que les clés de console n'ouvrent pas";
        NoTicket = "no_ticket", "no ticket for the rights ID of {}", "aucun ticket pour l'identifiant de droits de {}";
        // Inside an NCA: the word is what should be there (PFS0, RomFS, CNMT…).
        SectionNotA = "section_not_a", "its section is not a {}", "sa section n'est pas un {}";
        OutsideSection = "outside_section", "its {} lies outside its section", "son {} sort de sa section";
        HoldsNo = "holds_no", "it holds no {}", "il ne contient pas de {}";
        // Reading title data: a line's number, a bound, the one character expected
        // (`':'`).
        Line = "line", "line {}", "ligne {}";
        LongerThanBytes = "longer_than_bytes", "longer than {} bytes", "plus long que {} octets";
        NestedDeeper = "nested_deeper", "nested deeper than {} levels", "imbriqué sur plus de {} niveaux";
        Expected = "expected", "expected {}", "{} était attendu";
        // Fetching title data: a status, a size in MiB.
        SourceAnswered = "source_answered", "the source answered {}", "la source a répondu {}";
        LargerThan = "larger_than", "the file is larger than {} MiB", "le fichier dépasse {} Mio";
        // Any request to another host: a host, a count, seconds.
        OtherHost = "other_host", "redirected to another host ({})", "redirigé vers un autre hôte ({})";
        TooManyRedirects = "too_many_redirects", "more than {} redirects", "plus de {} redirections";
        NoAnswerWithin = "no_answer_within", "no complete answer within {} s", "pas de réponse complète en {} s";
    }
}

impl Reason {
    /// The stable name stored for it (its word apart).
    pub fn slug(&self) -> &'static str {
        self.parts().0
    }

    pub fn english(&self) -> String {
        let (_, english, _, word) = self.parts();
        fill(english, word)
    }

    pub fn french(&self) -> String {
        let (_, _, french, word) = self.parts();
        fill(french, word)
    }

    /// This reason, leading to `then` ("in x.nca: …").
    pub fn then(self, then: impl Into<Why>) -> Why {
        Why {
            reason: self,
            then: vec![then.into()],
        }
    }

    /// The reason whose English is `english`, its word taken from the `{}` slot (one
    /// word: no space in it).
    fn from_english(english: &str) -> Option<Reason> {
        Reason::table("").into_iter().find_map(|r| {
            let (_, pattern, _, _) = r.parts();
            match pattern.split_once("{}") {
                None => (pattern == english).then_some(r),
                Some((before, after)) => {
                    let word = english.strip_prefix(before)?.strip_suffix(after)?;
                    (!word.is_empty() && !word.contains(' '))
                        .then(|| Reason::of_slug(r.slug(), Some(word.into())))?
                }
            }
        })
    }
}

fn fill(sentence: &str, word: Option<&str>) -> String {
    match word {
        Some(word) => sentence.replacen("{}", word, 1),
        None => sentence.to_string(),
    }
}

/// A reason, and the reasons it leads to: "console keys: in x.nca: …".
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Why {
    pub reason: Reason,
    pub then: Vec<Why>,
}

impl From<Reason> for Why {
    fn from(reason: Reason) -> Why {
        Why {
            reason,
            then: Vec::new(),
        }
    }
}

impl Why {
    pub fn english(&self) -> String {
        self.said(Reason::english, ": ", "; ")
    }

    pub fn french(&self) -> String {
        self.said(Reason::french, "\u{a0}: ", " ; ")
    }

    fn said(&self, say: fn(&Reason) -> String, lead: &str, join: &str) -> String {
        match self.then.is_empty() {
            true => say(&self.reason),
            false => {
                let then: Vec<String> = self.then.iter().map(|w| w.said(say, lead, join)).collect();
                format!("{}{lead}{}", say(&self.reason), then.join(join))
            }
        }
    }

    /// The slug form (see the module's doc).
    pub fn slug(&self) -> String {
        let mut out = self.reason.slug().to_string();
        if let Some(word) = self.reason.parts().3 {
            out.push(':');
            escape(word, &mut out);
        }
        if !self.then.is_empty() {
            out.push('(');
            out.push_str(&slugs(&self.then));
            out.push(')');
        }
        out
    }

    /// Whether it is this reason, whatever it leads to.
    pub fn is(&self, reason: &Reason) -> bool {
        &self.reason == reason
    }
}

impl fmt::Display for Why {
    /// In English, as the log and the API say it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.english())
    }
}

fn slugs(whys: &[Why]) -> String {
    whys.iter().map(Why::slug).collect::<Vec<_>>().join(";")
}

fn escape(word: &str, out: &mut String) {
    for c in word.chars() {
        match c {
            '%' => out.push_str("%25"),
            ';' => out.push_str("%3B"),
            '(' => out.push_str("%28"),
            ')' => out.push_str("%29"),
            c => out.push(c),
        }
    }
}

fn unescape(word: &str) -> String {
    word.replace("%3B", ";")
        .replace("%28", "(")
        .replace("%29", ")")
        .replace("%25", "%")
}

/// Several reasons, one after the other: what a game's note, a task's failure or a
/// damage mark carries. Serialised as its slug form.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Detail(pub Vec<Why>);

impl From<Why> for Detail {
    fn from(why: Why) -> Detail {
        Detail(vec![why])
    }
}

impl From<Reason> for Detail {
    fn from(reason: Reason) -> Detail {
        Detail(vec![reason.into()])
    }
}

impl Detail {
    pub fn english(&self) -> String {
        let said: Vec<String> = self.0.iter().map(Why::english).collect();
        said.join("; ")
    }

    pub fn french(&self) -> String {
        let said: Vec<String> = self.0.iter().map(Why::french).collect();
        said.join(" ; ")
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The slug form, as stored (see the module's doc).
    pub fn slug(&self) -> String {
        slugs(&self.0)
    }

    /// A stored text: the slug form, else an older database's English read back
    /// through the table, else the text as it is.
    pub fn read(stored: &str) -> Detail {
        Slugs(stored)
            .list()
            .filter(|(rest, _)| rest.0.is_empty())
            .map(|(_, list)| Detail(list))
            .or_else(|| Detail::from_english(stored))
            .unwrap_or_else(|| Reason::Text(stored.into()).into())
    }

    /// The reasons whose English is `english`: pieces joined by "; " (a piece may
    /// hold a "; " itself: the shortest run of pieces that is one of ours first), each
    /// a sentence of the table or one followed by ": " and what it leads to.
    pub fn from_english(english: &str) -> Option<Detail> {
        let parts: Vec<&str> = english.split("; ").collect();
        let mut out = Vec::new();
        let mut at = 0;
        while at < parts.len() {
            let (next, why) = (at + 1..=parts.len())
                .find_map(|end| why_of_english(&parts[at..end].join("; ")).map(|w| (end, w)))?;
            out.push(why);
            at = next;
        }
        Some(Detail(out))
    }
}

/// One sentence of the table, or one followed by ": " and what it leads to.
fn why_of_english(english: &str) -> Option<Why> {
    if let Some(reason) = Reason::from_english(english) {
        return Some(reason.into());
    }
    let (head, tail) = english.split_once(": ")?;
    Some(Why {
        reason: Reason::from_english(head)?,
        then: Detail::from_english(tail)?.0,
    })
}

/// Reading the slug form: what is left of it, consumed from the front.
struct Slugs<'a>(&'a str);

impl<'a> Slugs<'a> {
    /// Reasons joined by `;`, up to the end or a `)`.
    fn list(self) -> Option<(Slugs<'a>, Vec<Why>)> {
        let (mut rest, mut out) = (self, Vec::new());
        if rest.0.is_empty() {
            return Some((rest, out));
        }
        loop {
            let (left, why) = rest.why()?;
            out.push(why);
            match left.0.strip_prefix(';') {
                Some(more) => rest = Slugs(more),
                None => return Some((left, out)),
            }
        }
    }

    /// One reason, its word, and what it leads to.
    fn why(self) -> Option<(Slugs<'a>, Why)> {
        let s = self.0;
        let end = s.find([':', '(', ';', ')']).unwrap_or(s.len());
        let (slug, mut rest) = s.split_at(end);
        let mut word = None;
        if let Some(after) = rest.strip_prefix(':') {
            let end = after.find(['(', ';', ')']).unwrap_or(after.len());
            word = Some(unescape(&after[..end]));
            rest = &after[end..];
        }
        let reason = Reason::of_slug(slug, word)?;
        let mut then = Vec::new();
        if let Some(inner) = rest.strip_prefix('(') {
            let (left, list) = Slugs(inner).list()?;
            rest = left.0.strip_prefix(')')?;
            then = list;
        }
        Some((Slugs(rest), Why { reason, then }))
    }
}

impl fmt::Display for Detail {
    /// In English, as the log and the API say it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.english())
    }
}

impl Serialize for Detail {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.slug())
    }
}

impl<'de> Deserialize<'de> for Detail {
    /// The slug form, or the English an older database kept (see [`Detail::read`]).
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Detail, D::Error> {
        String::deserialize(d).map(|s| Detail::read(&s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn every() -> Vec<Reason> {
        Reason::table("PFS0")
    }

    #[test]
    fn every_slug_reads_back_as_its_reason() {
        for r in every() {
            let why = Why::from(r.clone());
            assert_eq!(Detail::read(&why.slug()), Detail::from(r.clone()), "{r:?}");
            assert!(
                why.slug().bytes().all(|b| b.is_ascii_lowercase()
                    || b.is_ascii_digit()
                    || b"_:PFS0".contains(&b)),
                "{r:?}"
            );
        }
        let mut slugs: Vec<&str> = every().iter().map(Reason::slug).collect();
        slugs.sort();
        slugs.dedup();
        assert_eq!(slugs.len(), every().len(), "a slug is given twice");
    }

    #[test]
    fn every_english_is_distinct_and_reads_back() {
        let mut english: Vec<String> = every().iter().map(Reason::english).collect();
        english.sort();
        english.dedup();
        assert_eq!(english.len(), every().len(), "an English is given twice");
        for r in every() {
            let (_, en, fr, word) = r.parts();
            if word.is_some() {
                assert_eq!(en.matches("{}").count(), 1, "{r:?}");
                assert_eq!(fr.matches("{}").count(), 1, "{r:?}");
            }
            // A name alone is the same in both languages, and reads back as nothing
            // more precise than itself.
            if !matches!(r, Reason::Name(_)) {
                assert_ne!(r.french(), r.english(), "{r:?}");
                assert_eq!(Reason::from_english(&r.english()), Some(r.clone()));
            }
        }
    }

    fn sample() -> Detail {
        Detail(vec![
            Reason::Unreadable.then(Reason::NoHeader("PFS0".into())),
            Why {
                reason: Reason::ConsoleKeys,
                then: vec![
                    Reason::In("a;b(c)%.nca".into()).then(Reason::NcaShort),
                    Reason::WrongKeys.into(),
                ],
            },
            Reason::SeveralTitleIds.into(),
        ])
    }

    #[test]
    fn words_and_chains_read_back() {
        let d = sample();
        assert_eq!(
            d.slug(),
            "unreadable(no_header:PFS0);console_keys(in:a%3Bb%28c%29%25.nca(nca_short);wrong_keys);several_title_ids"
        );
        assert_eq!(Detail::read(&d.slug()), d);
        assert_eq!(
            d.english(),
            "the container could not be read: no PFS0 header where one is expected; \
             console keys: in a;b(c)%.nca: the NCA is shorter than its header; NCA headers \
             do not decrypt with these keys; the file name holds several title IDs; the \
             first was taken"
        );
        assert_eq!(
            d.french(),
            "le conteneur est illisible\u{a0}: pas d'en-tête PFS0 là où il en faut un ; \
             clés de console\u{a0}: dans a;b(c)%.nca\u{a0}: le NCA est plus court que son \
             en-tête ; des en-têtes de NCA ne se déchiffrent pas avec ces clés ; le nom du \
             fichier porte plusieurs identifiants de titre ; le premier a été pris"
        );
        let json = serde_json::to_string(&d).unwrap();
        assert_eq!(serde_json::from_str::<Detail>(&json).unwrap(), d);
        assert_eq!(Detail::read(""), Detail::default());
    }

    #[test]
    fn an_older_english_note_is_read_back() {
        let english = "the container could not be read: the HFS0 header is truncated; the \
                       title ID is not one of a game, an update or a DLC";
        let d = Detail::read(english);
        assert_eq!(
            d,
            Detail(vec![
                Reason::Unreadable.then(Reason::HeaderTruncated("HFS0".into())),
                Reason::UnknownKind.into(),
            ])
        );
        assert_eq!(d.english(), english);
        let kept =
            "abc.nca does not match its content ID (corrupt or modified); the original was kept";
        assert_eq!(
            Detail::read(kept),
            Detail::from(Reason::ContentIdMismatch("abc.nca".into()))
        );
        assert_eq!(Detail::read(kept).english(), kept);
    }

    #[test]
    fn text_of_none_of_ours_is_kept_as_it_is() {
        for text in [
            "something else",
            "a; b (c)",
            "line 3: not three fields",
            "wrong_keys:x",
        ] {
            let d = Detail::read(text);
            assert_eq!(d.english(), text);
            assert_eq!(d.french(), text);
            assert_eq!(Detail::read(&d.slug()), d, "{text}");
        }
    }
}
