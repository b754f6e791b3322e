//! Every sentence an error can say, as a slug and its parameters.
//!
//! A message is data, not text: the API renders it in English (`english`), the
//! command line and the web interface in the reader's language (`french` beside it).
//! Each message is one entry of a table, its English then its French, so that a new
//! message does not compile without both.
//! No message holds a server path: parameters are keys, names, limits and addresses
//! the caller gave or may see.

use serde::{Deserialize, Serialize};

use super::counts::{duration, Grammar};
use super::reason::Detail;
use crate::words::{KeysState, PushEnd, StartedBy, Task, Unit};

/// The web's sentences in English group thousands and agree with their counts.
const EN: Grammar = Grammar::English;

/// A table of sentences, each written once: its variant and fields, its English, then
/// its French. It makes the enum (with the attributes given before its name) and its
/// `english` and `french`, so that a sentence without either does not compile.
macro_rules! catalogue {
    ($(#[$em:meta])* $name:ident {
        $($(#[$m:meta])* $v:ident $({ $($f:ident: $t:ty),* })? => $en:expr, $fr:expr;)*
    }) => {
        $(#[$em])*
        pub enum $name { $($(#[$m])* $v $({ $($f: $t),* })?,)* }

        #[allow(unused_variables, clippy::useless_format)]
        impl $name {
            /// The line in English.
            pub fn english(&self) -> String {
                use $name::*;
                match self { $($v { $($($f,)*)? } => String::from($en),)* }
            }
            /// The line in French.
            pub fn french(&self) -> String {
                use $name::*;
                match self { $($v { $($($f,)*)? } => String::from($fr),)* }
            }
        }
    };
}

catalogue! {
    /// A message: the variant is its slug, the fields its parameters. Serialised, it is
    /// `{"slug": "...", <parameters>}`.
    #[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
    #[serde(tag = "slug", rename_all = "snake_case")]
    Msg {
    // The service itself.
    Internal => INTERNAL_MESSAGE,
        "erreur interne du service ; le détail est dans son journal";
    DatabaseTooNew => "The database was written by a newer version of the service.",
        "la base de données a été écrite par une version plus récente de ludotheque ; installez cette version ou une plus récente.";
    DataLocked => "Another ludotheque process is using this data folder.",
        "un serveur ludotheque utilise déjà ce dossier de données ; arrêtez-le d'abord, ou passez par l'API.";
    FolderOffline { name: String, kept: u64 } => format!("The library folder “{name}” is offline (missing, unreadable or empty): {} kept as they were, not playable until it is back.", EN.count(*kept, "file", "files")),
        format!("le dossier de la bibliothèque « {name} » est hors ligne (absent, illisible ou vide) : {} tels quels, injouables jusqu'à son retour.", FR.count(*kept, "fichier gardé", "fichiers gardés"));
    FolderNotThere => "That folder does not exist or is not a folder: give a folder of the server (the disk or share mounted there).",
        "ce dossier n'existe pas ou n'est pas un dossier : indiquez un dossier du serveur (le disque ou le partage qui y est monté).";
    FolderNotAbsolute => "Give the folder's full path on the server, starting with /.",
        "indiquez le chemin complet du dossier sur le serveur, commençant par /.";
    FolderToAdd => "Give one folder to add: [NAME=]FOLDER.",
        "indiquez un dossier à ajouter : [NOM=]DOSSIER.";
    FolderFixed { name: String } => format!("The library folder “{name}” is given by --library when the service starts: remove the flag to take it out."),
        format!("le dossier de la bibliothèque « {name} » est donné par --library au démarrage du service : retirez l'option pour l'enlever.");
    FolderIsRoot { name: String } => format!("“{name}” is the library's first folder, its root: it stays."),
        format!("« {name} » est le premier dossier de la bibliothèque, sa racine : il reste.");
    NoSuchFolder { name: String } => format!("The library has no folder named “{name}”."),
        format!("la bibliothèque n'a pas de dossier nommé « {name} ».");
    FolderRemoved { name: String, files: u64 } => format!("The folder “{name}” left the library with its {}; nothing on disk was touched", files_en(*files)),
        format!("le dossier « {name} » a quitté la bibliothèque avec ses {} ; rien n'a été touché sur le disque", files_fr(*files));
    FolderNotMounted { name: String, kept: u64 } => format!("The library folder “{name}” is not given to this run (a --library left out, or an added folder refused at start): {} kept as they were.", EN.count(*kept, "file", "files")),
        format!("le dossier de la bibliothèque « {name} » n'est pas donné à cette exécution (un --library omis, ou un dossier ajouté refusé au démarrage) : {} tels quels.", FR.count(*kept, "fichier gardé", "fichiers gardés"));
    KeyInOtherFolder { name: String } => format!("That place now lies in the library folder “{name}”, added since: the file cannot go back there from its own folder's trash (take that folder out of the library to restore it)."),
        format!("cette place est désormais dans le dossier de la bibliothèque « {name} », ajouté depuis : le fichier ne peut pas y revenir depuis la corbeille de son propre dossier (retirez ce dossier de la bibliothèque pour le restaurer).");
    FolderAway { name: String } => format!("The library folder “{name}” is offline (missing, unreadable or empty): check that its disk or share is mounted."),
        format!("le dossier de la bibliothèque « {name} » est hors ligne (absent, illisible ou vide) : vérifiez que son disque ou son partage est monté.");
    LibraryUnavailable => "The library folder is missing, unreadable or empty; nothing was changed. Check that its disk is mounted.",
        "le dossier de la bibliothèque est absent, illisible ou vide ; rien n'a été changé. Vérifiez que son disque est monté.";
    Busy => "A task is already running; retry when it has finished.",
        "une tâche est déjà en cours ; réessayez quand elle sera finie";
    Cancelled => "The task was cancelled.",
        "la tâche a été annulée";
    Overloaded => "The service is busy with other requests; retry shortly.",
        "le service est occupé ; réessayez dans un instant";
    RateLimited => "Too many requests; wait before trying again.",
        "trop de requêtes ; patientez avant de réessayer";
    // HTTP.
    NoRoute => "There is no such route.",
        "cette route n'existe pas";
    MethodNotAllowed => "This method is not allowed on this route.",
        "cette méthode n'est pas permise sur cette route";
    ApiKeyRequired => "A valid API key is required (header X-Api-Key).",
        "une clé d'API valide est nécessaire (en-tête X-Api-Key)";
    LoginFailed => "Wrong name or password.",
        "nom ou mot de passe incorrect";
    CrossOrigin => "Cross-origin state-changing requests are refused.",
        "les requêtes d'un autre site qui changent l'état sont refusées";
    KeyOutOfScope => "An API key only reaches /api/v1/ routes.",
        "une clé d'API n'atteint que les routes /api/v1/";
    KeyReadOnly => "This API key is read-only.",
        "cette clé d'API est en lecture seule";
    ShopCredentialsRequired => "The shop needs a console's name and password (HTTP Basic); an administrator creates them with “ludotheque console add NAME”.",
        "la boutique demande le nom et le mot de passe d'une console (HTTP Basic) ; un administrateur les crée avec « ludotheque console add NOM »";
    KeyNotForShop => "An API key does not open the shop: use a console's name and password (HTTP Basic).",
        "une clé d'API n'ouvre pas la boutique : utilisez le nom et le mot de passe d'une console (HTTP Basic)";
    ViewerReadOnly => "A viewer account can view but not change anything.",
        "un compte lecteur peut tout consulter mais ne rien modifier";
    PayloadTooLarge { limit: usize } => format!("The request body is larger than the limit of {limit} bytes."),
        format!("le corps de la requête dépasse la limite de {limit} octets");
    UriTooLong { limit: usize } => format!("The request target is longer than the limit of {limit} bytes."),
        format!("la cible de la requête dépasse la limite de {limit} octets");
    HeadersTooLarge { limit: usize } => format!("The request headers are larger than the limit of {limit} bytes."),
        format!("les en-têtes dépassent la limite de {limit} octets");
    OneHostHeader => "A request carries one Host header.",
        "une requête porte un seul en-tête Host";
    BadTarget => "The request target is a path starting with / (or an absolute http:// URL).",
        "la cible de la requête est un chemin commençant par / (ou une URL http:// absolue)";
    BodyUnreadable => "The request body could not be read.",
        "le corps de la requête est illisible";
    BodyTooSlow => "The request body did not arrive in time.",
        "le corps de la requête n'est pas arrivé à temps";
    AmbiguousLength { why: String } => format!("The request's length is ambiguous ({why}); the connection is closed."),
        format!("la longueur de la requête est ambiguë ({why}) ; la connexion est fermée");
    MissingParameter { name: String } => format!("The query parameter '{name}' is required."),
        format!("le paramètre « {name} » est obligatoire");
    BadJson { expected: String } => format!("Expected a JSON object with {expected}."),
        format!("un objet JSON était attendu avec {expected}");
    SearchTooLong { bytes: usize, words: usize } => format!("A search text has at most {bytes} bytes and {words} words."),
        format!("une recherche a au plus {bytes} octets et {words} mots");
    BadGameType => "The parameter 'type' must be one of BASE, UPDATE, DLC, INCONNU.",
        "le type est BASE, UPDATE, DLC ou INCONNU";
    NoSuchFile => "There is no such file.",
        "ce fichier n'existe pas";
    NoSuchDownload => "There is no such download.",
        "ce téléchargement n'existe pas";
    FileGone => "That file is no longer in the library.",
        "ce fichier n'est plus dans la bibliothèque";
    // Names.
    NameLength { what: String, max: usize } => format!("{what} must have 1 to {max} characters and no spaces at either end."),
        format!("un nom a de 1 à {max} caractères, sans espace au début ni à la fin");
    NameControl { what: String } => format!("{what} cannot hold control characters (such as a newline or a tab)."),
        "un nom ne peut pas contenir de caractère de contrôle (retour à la ligne, tabulation)";
    NameInvisible { what: String } => format!("{what} cannot hold invisible characters: no format characters (Unicode category Cf: zero-width spaces and joiners, direction marks, embeddings, overrides and isolates, the byte order mark), no other default-ignorable characters (variation selectors, fillers, the soft hyphen), and no space but the ordinary one."),
        "un nom ne peut pas contenir de caractère invisible : ni caractère de format (catégorie Unicode Cf : espaces et liants sans chasse, marques, enchâssements, forçages et isolats de direction, indicateur d'ordre des octets), ni autre caractère ignorable par défaut (sélecteurs de variante, remplissages, trait d'union conditionnel), ni autre espace que l'espace ordinaire";
    // Accounts and keys.
    PasswordTooShort { min: usize } => format!("A password needs at least {min} characters."),
        format!("un mot de passe a au moins {min} caractères");
    PasswordTooLong { max: usize } => format!("A password must have at most {max} bytes."),
        format!("un mot de passe a au plus {max} octets");
    BadRole => "A role must be 'admin' or 'viewer'.",
        "un rôle est « admin » ou « viewer »";
    AccountExists => "An account with that name already exists.",
        "un compte porte déjà ce nom (sans distinction de majuscules)";
    AlreadySetUp => "An account already exists: sign in instead.",
        "un compte existe déjà : connectez-vous";
    NoAccount { name: String } => "No account has that name.",
        format!("aucun compte ne s'appelle {name} (voir « ludotheque user list »)");
    SetupCodeNeeded => "The first account needs the setup code the service wrote to its log when it started (the terminal that runs it, “journalctl -u ludotheque” or “docker logs CONTAINER”), or “ludotheque user add NAME --admin” on its machine.",
        "le premier compte demande le code de premier lancement que le service a écrit dans son journal à son démarrage (le terminal qui le lance, « journalctl -u ludotheque » ou « docker logs CONTENEUR »), ou « ludotheque user add NOM --admin » sur sa machine";
    SetupCodeWrong => "That is not the setup code. It is on the line “…with the setup code CODE…” the service wrote to its log when it started (the terminal that runs it, “journalctl -u ludotheque” or “docker logs CONTAINER”).",
        "ce n'est pas le code de premier lancement ; il est sur la ligne « …with the setup code CODE… » que le service a écrite dans son journal à son démarrage (le terminal qui le lance, « journalctl -u ludotheque » ou « docker logs CONTENEUR »)";
    NotSignedIn => "Only a signed-in account has a language and a password.",
        "seul un compte connecté a une langue et un mot de passe";
    BadLang => "The language is 'fr' or 'en'.",
        "la langue est « fr » ou « en »";
    AdminOnly => "Only an admin can see the accounts.",
        "seul un administrateur voit les comptes";
    NoApiKey { id: String } => "No API key has that id.",
        format!("aucune clé d'API n'a l'identifiant {id} (voir « ludotheque apikey list »)");
    // The library.
    NoGame { key: String } => "No game has that key.",
        // The caller's own input, repeated only when it looks like a key of the
        // library: never something shaped like a path of the server.
        match key.starts_with('/') || key.contains("..") {
            true => "aucun jeu ne se trouve à ce chemin".into(),
            false => format!("aucun jeu ne se trouve à « {key} »"),
        };
    NotTitleId => "That is not a title ID.",
        "ce n'est pas un identifiant de titre";
    // Consoles' save backups.
    ConsoleCredentialsRequired => "Save backups need a console's name and password (HTTP Basic), as in the shop.",
        "les sauvegardes demandent le nom et le mot de passe d'une console (HTTP Basic), comme la boutique";
    NoSave => "This console has no such save backup.",
        "cette console n'a pas cette sauvegarde";
    BadSaveId => "A save ID has 1 to 96 characters among A-Z, a-z, 0-9, '.', '_' and '-'.",
        "un identifiant de sauvegarde a de 1 à 96 caractères parmi A-Z, a-z, 0-9, « . », « _ » et « - »";
    NoSaveArchive => "The upload holds no save archive: send it as the form field 'file'.",
        "la requête ne contient pas d'archive de sauvegarde : envoyez-la dans le champ « file »";
    SaveNotZip => "The save archive is not a readable zip file; nothing was kept.",
        "l'archive de sauvegarde n'est pas un fichier zip lisible ; rien n'a été gardé";
    SaveUnsafeEntry { entry: String } => format!("The save archive holds an entry that could write outside its folder (\"{entry}\"); nothing was kept."),
        format!("l'archive de sauvegarde contient une entrée qui pourrait écrire hors de son dossier (« {entry} ») ; rien n'a été gardé");
    NotMultipart => "An upload is a multipart/form-data body.",
        "un dépôt de fichier est un corps multipart/form-data";
    SaveRestoreName => "A save backup can only be restored under its own name.",
        "une sauvegarde revient sous son propre nom";
    SaveDiskFull => "The disk of the data folder is full: nothing was kept, and the earlier versions are as they were.",
        "le disque du dossier de données est plein : rien n'a été gardé, et les versions précédentes sont intactes";
    DavTaken => "Something is already there, and the request said not to overwrite it.",
        "quelque chose est déjà là, et la requête demande de ne pas l'écraser";
    DavNoParent => "The folder it would go in does not exist.",
        "le dossier où il irait n'existe pas";
    DavBody => "A new folder takes no body.",
        "un nouveau dossier ne prend pas de corps";
    DavBadXml => "The XML body is not well formed, or not what this method takes.",
        "le corps XML est mal formé, ou n'est pas ce que cette méthode prend";
    DavBadPath => "A path segment is empty, '.', '..', or holds a control character or '\\'.",
        "un segment du chemin est vide, « . », « .. », ou contient un caractère de contrôle ou « \\ »";
    DavIsFolder => "That is a folder.",
        "c'est un dossier";
    DavSame => "The source and the destination are the same, or one holds the other.",
        "la source et la destination sont les mêmes, ou l'une contient l'autre";
    DavBadDestination => "The Destination header names no place in this console's space.",
        "l'en-tête Destination ne nomme aucun endroit de l'espace de cette console";
    DavRoot => "The console's own folder cannot be deleted, moved or replaced.",
        "le dossier propre à la console ne peut être ni supprimé, ni déplacé, ni remplacé";
    DavTooMany { max: usize } => format!("That is more than {max} entries, or a larger answer than the service gives at once: ask for less (Depth: 1, fewer properties)."),
        format!("c'est plus de {max} entrées, ou une réponse plus grande que ce que le service donne d'un coup : demandez-en moins (Depth: 1, moins de propriétés)");
    DavTooDeep { max: usize } => format!("A path has at most {max} folders."),
        format!("un chemin a au plus {max} dossiers");
    DavPropsTooLarge => "A property's value has at most 64 KiB, and a file at most 256 properties and 256 KiB of them in all.",
        "la valeur d'une propriété fait au plus 64 Kio, et un fichier a au plus 256 propriétés et 256 Kio de propriétés en tout";
    SaveQuota { quota: u64 } => format!("This console's saves would pass its quota of {quota} bytes: nothing was kept."),
        format!("les sauvegardes de cette console dépasseraient leur quota de {quota} octets : rien n'a été gardé");
    FormFieldTooLong { max: usize } => format!("A form field other than the file has at most {max} bytes."),
        format!("un champ du formulaire autre que le fichier fait au plus {max} octets");
    NothingOfTitle { id: String } => "The library has no files for that title.",
        format!("la bibliothèque n'a rien du titre « {id} »");
    /// A file given to decompress that is no `.nsz`/`.xcz`.
    NotCompressed { key: String } => format!("Only .nsz and .xcz files decompress; \"{key}\" is not one."),
        format!("seuls les .nsz et .xcz se décompressent ; « {key} » n'en est pas un");
    // Platforms.
    BadSlug => "A slug has 1 to 32 characters among a-z, 0-9 and '-'.",
        "un identifiant de plateforme a de 1 à 32 caractères parmi a-z, 0-9 et « - »";
    BadFolder => "The folder is a path inside the library, like 'retro/gba', without '..'.",
        "le dossier est un chemin dans la bibliothèque, comme « retro/gba », sans « .. »";
    FolderRefused => "The folder cannot be a link, a hidden folder or the trash.",
        "le dossier ne peut être ni un lien, ni un dossier caché, ni la corbeille";
    BadExtensions => "Extensions are short words of letters and digits, like 'gba, zip'.",
        "les extensions sont de courts mots de lettres et de chiffres, comme « gba, zip »";
    PlatformExists => "A platform with that slug already exists.",
        "une plateforme a déjà cet identifiant";
    NoPlatform => "No platform has that slug.",
        "aucune plateforme n'a cet identifiant";
    LastPlatform => "The last platform cannot be removed.",
        "la dernière plateforme ne peut pas être retirée";
    // The trash.
    NoTrashEntry => "No trash entry has that id.",
        "aucune entrée de la corbeille n'a cet identifiant (voir « ludotheque trash list »)";
    TrashFolderLink => "The trash folder is a link or not a folder; nothing was done. Remove it by hand.",
        "le dossier de la corbeille est un lien ou n'est pas un dossier ; rien n'a été fait. Retirez-le à la main.";
    TrashEntryVanished => "The file of this trash entry has vanished.",
        "le fichier de cette entrée de la corbeille a disparu";
    TrashEntryLink => "This trash entry passes through a link or is a folder; nothing was moved.",
        "cette entrée de la corbeille passe par un lien ou est un dossier ; rien n'a été déplacé";
    KeyOccupied => "A file already exists at that key; nothing was moved.",
        "un fichier occupe déjà cet emplacement ; rien n'a été déplacé";
    LinkOnTheWay => "A folder on the way to that key is a link or not a folder; nothing was moved.",
        "un dossier sur le chemin est un lien ou n'est pas un dossier ; rien n'a été déplacé";
    // The console and the push.
    NoDevice => "No console is set up: set one up on the push page or with “ludotheque device set”.",
        "aucune console n'est configurée : configurez-en une sur la page d'envoi ou avec « ludotheque device set »";
    ConsoleNameColon => "A console's name cannot contain ':' (HTTP Basic ends the name there).",
        "le nom d'une console ne peut pas contenir « : » (HTTP Basic y arrête le nom)";
    /// `.` and `..` are no names: in an address they mean a folder.
    ConsoleNameDots => "A console's name cannot be '.' or '..' (in an address they name a folder).",
        "le nom d'une console ne peut pas être « . » ni « .. » (dans une adresse, ils désignent un dossier)";
    ConsoleNameAddress => "A console's name cannot be an IP address: with --shop-public, clients without a name are known by their address.",
        "le nom d'une console ne peut pas être une adresse IP : avec --shop-public, les clients sans nom sont connus par leur adresse";
    ShopMessage { max: usize } => format!("The shop's message has at most {max} characters and no control characters."),
        format!("le message de la boutique a au plus {max} caractères, sans caractère de contrôle");
    ConsoleExists { name: String } => format!("A console is already named '{name}'."),
        format!("une console s'appelle déjà « {name} »");
    NoConsole { name: String } => format!("No console is named '{name}'."),
        format!("aucune console ne s'appelle « {name} » (voir « ludotheque console list »)");
    ConsoleAddressNotIp => "The console's address must be an IP address.",
        "l'adresse de la console doit être une adresse IP";
    BadPort => "The console's port must be between 1 and 65535.",
        "le port de la console est entre 1 et 65535";
    OfferAddressNotIp => "The address offered to the console must be an IP address.",
        "l'adresse annoncée à la console doit être une adresse IP";
    BadConsoleAddress { host: String } => format!("The console's address {host} is not valid."),
        format!("l'adresse de la console {host} n'est pas valable");
    NoRouteToConsole => "No route to the console was found.",
        "aucune route vers la console n'a été trouvée";
    ListenUnreachable { listen: String, port: u16 } => format!("The service listens on {listen}, which the console cannot reach: listen on the network (--listen 0.0.0.0:{port})."),
        format!("le service écoute sur {listen}, que la console ne peut pas joindre : écoutez sur le réseau (--listen 0.0.0.0:{port})");
    ConsoleNotWaiting => "The console is not waiting on its network install screen (the connection failed); nothing left the list.",
        "la console n'attend pas sur son écran d'installation réseau (la connexion a échoué) ; rien n'a quitté la liste";
    NothingReached { address: String } => format!("No request reached the service: the console could not reach {address} (firewall, wrong address, VPN?)."),
        format!("aucune requête n'est arrivée : la console n'a pas pu joindre {address} (pare-feu, mauvaise adresse, VPN ?)");
    NotInPushList { key: String } => "That game is not in the push list.",
        format!("« {key} » n'est pas dans la liste d'envoi");
    // Convert.
    ConvertFailed { key: String, reason: Detail } => format!("{key}: {reason}"),
        format!("{key} : la décompression a échoué ({})", reason.french());
    ConvertTargetExists { key: String, target: String } => format!("{key}: {target} already exists; skipped"),
        format!("{key} : {target} existe déjà ; ignoré");
    /// The convert task will not start: the decompressed files need more room than the
    /// library's disk has (originals stay in the trash until purged).
    NoRoomToConvert { needed: u64, free: u64 } => format!("Decompressing needs {} but the library's disk has {} free (the originals stay in the trash until purged); nothing was decompressed.", EN.size(*needed), EN.size(*free)),
        format!("la décompression demande {} mais le disque de la bibliothèque n'a que {} de libre (les originaux restent dans la corbeille jusqu'à ce qu'on la vide) ; rien n'a été décompressé", octets(*needed), octets(*free));
    // Compress.
    CompressFailed { key: String, reason: Detail } => format!("{key}: {reason}"),
        format!("{key} : la compression a échoué ({})", reason.french());
    CompressTargetExists { key: String, target: String } => format!("{key}: {target} already exists; skipped"),
        format!("{key} : {target} existe déjà ; ignoré");
    /// The compressed file does not give back the NCAs its CNMT records (`why`, as
    /// verify says it): the original stays.
    CompressUnverified { key: String, why: Box<Msg> } => format!("{key}: the compressed file did not verify ({}); the original was kept", why.english()),
        format!("{key} : le fichier compressé n'a pas passé la vérification ({}) ; l'original a été gardé", why.french());
    /// The compress task will not start: the compressed files (the originals waiting
    /// in the trash) and one in flight need more room than the disk has.
    NoRoomToCompress { needed: u64, free: u64 } => format!("Compressing needs {} but the library's disk has {} free (the originals stay in the trash until purged); nothing was compressed.", EN.size(*needed), EN.size(*free)),
        format!("la compression demande {} mais le disque de la bibliothèque n'a que {} de libre (les originaux restent dans la corbeille jusqu'à ce qu'on la vide) ; rien n'a été compressé", octets(*needed), octets(*free));
    /// Skipped by compress: the file is already a `.nsz` or `.xcz`.
    AlreadyCompressed => "already compressed",
        "déjà compressé";
    /// Skipped by compress: not an `.nsp` or `.xci`.
    NotCompressible => "only .nsp and .xci files are compressed",
        "seuls les fichiers .nsp et .xci se compressent";
    /// Skipped by compress: the console keys lack this key revision (`0x12`).
    CompressKeyMissing { revision: String } => format!("the console keys lack the key revision {revision}; left as it is"),
        format!("les clés de la console n'ont pas la révision de clé {revision} ; laissé tel quel");
    /// Skipped by compress: `compressed` bytes would save less than `min_gain` percent
    /// of `size`.
    CompressGainTooSmall { size: u64, compressed: u64, min_gain: u32 } => format!("compressing would save {}% (under {min_gain}%); left as it is", gain_percent(*size, *compressed)),
        format!("la compression ne gagnerait que {} % (moins de {min_gain} %) ; laissé tel quel", super::msg::gain_percent(*size, *compressed));
    // How tasks ended (stored with each run, shown in the reader's language).
    ScanDone { files: u64, read: u64, unchanged: u64, removed: u64 } => format!("{}: {read} read, {unchanged} unchanged, {removed} removed", files_en(*files)),
        format!("{} : {}, {}, {}", files_fr(*files), plural(*read, "lu", "lus"), plural(*unchanged, "inchangé", "inchangés"), plural(*removed, "retiré", "retirés"));
    /// A scan whose reading identified files with the console keys.
    ScanIdentified { files: u64, read: u64, identified: u64 } => format!("{}: {read} read, {} identified with the console keys", files_en(*files), EN.count(*identified, "file", "files")),
        format!("{} : {}, {} avec les clés de console", files_fr(*files), plural(*read, "lu", "lus"), plural(*identified, "fichier identifié", "fichiers identifiés"));
    ScanIncomplete { files: u64, read: u64, unchanged: u64, kept: u64 } => format!("{}: {read} read, {unchanged} unchanged; part of the library could not be read, so {kept} not found were kept", files_en(*files)),
        format!("{} : {}, {} ; une partie de la bibliothèque était illisible, donc {} {}", files_fr(*files), plural(*read, "lu", "lus"), plural(*unchanged, "inchangé", "inchangés"), plural(*kept, "introuvable", "introuvables"), agree(*kept, "gardé", "gardés"));
    TaskPartial { task: Task, failed: u64 } => format!("the {task} task finished, but {} failed", EN.count(*failed, "item", "items")),
        format!("la tâche {task} s'est terminée, mais {} {}", plural(*failed, "élément", "éléments"), agree(*failed, "a échoué", "ont échoué"));
    ConvertDone { converted: u64, failed: u64 } => format!("{converted} converted, {failed} failed"),
        format!("{}, {} en échec", plural(*converted, "fichier décompressé", "fichiers décompressés"), n(*failed));
    /// `saved`: the bytes the compressed files save on their originals.
    CompressDone { compressed: u64, skipped: u64, failed: u64, saved: u64 } => format!("{compressed} compressed ({} saved), {skipped} skipped, {failed} failed", EN.size(*saved)),
        format!("{} ({} {}), {}, {} en échec", plural(*compressed, "fichier compressé", "fichiers compressés"), octets(*saved), agree(*saved, "gagné", "gagnés"), plural(*skipped, "ignoré", "ignorés"), n(*failed));
    PushEmpty => "The push list is empty; nothing was offered.",
        "la liste d'envoi est vide ; rien n'a été proposé";
    PushDone { delivered: u64, partial: u64, untouched: u64, ended: PushEnd } => {
                let how = match ended {
                    PushEnd::Ack => "the console acknowledged",
                    PushEnd::Drop => "the console sent DROP",
                    PushEnd::Closed => "the console closed the connection",
                    PushEnd::Quiet => "nothing happened for too long",
                };
                format!("{delivered} delivered, {partial} partial, {untouched} untouched ({how})")
            },
        {
                let how = match ended {
                    PushEnd::Ack => "la console a confirmé",
                    PushEnd::Drop => "la console a envoyé DROP",
                    PushEnd::Closed => "la console a fermé la connexion",
                    PushEnd::Quiet => "plus rien ne s'est passé pendant trop longtemps",
                };
                format!("{}, {} en partie, {} ({how})", plural(*delivered, "livré", "livrés"), n(*partial), plural(*untouched, "non envoyé", "non envoyés"))
            };
    TitlesDone { files: u64, entries: u64, renamed: u64, icons: Option<(u64, u64)> } => format!("{} imported: {}; {} renamed.{}", EN.count(*files, "title data file", "title data files"), EN.count(*entries, "entry", "entries"), EN.count(*renamed, "game", "games"), icons_english(icons)),
        format!("{} de données de titres {} : {} ; {} {}.{}", plural(*files, "fichier", "fichiers"), agree(*files, "importé", "importés"), plural(*entries, "entrée", "entrées"), plural(*renamed, "jeu", "jeux"), agree(*renamed, "renommé", "renommés"), icons_french(icons));
    TitlesUnchanged { icons: Option<(u64, u64)> } => format!("The title data is unchanged at the source.{}", icons_english(icons)),
        format!("les données de titres n'ont pas changé à la source.{}", icons_french(icons));
    OrganizeDone { moved: u64, run: i64, taken: u64, in_place: u64, left: u64 } => {
                let undo = match moved {
                    0 => String::new(),
                    _ => format!(" (run {run}: its “Undo this run” button on the Upkeep page, or “ludotheque organize --undo {run}”, puts them back)"),
                };
                format!("{} moved{undo}; {taken} skipped because their destination is in use, {in_place} already in place, {left} unidentified or links left alone", files_en(*moved))
            },
        {
                let undo = match moved {
                    0 => String::new(),
                    _ => format!(" (rangement {run} : son bouton « Annuler ce rangement » sur la page Rangement, ou « ludotheque organize --undo {run} », les remet en place)"),
                };
                format!("{}{undo} ; {}, {} déjà en place, {} (non identifiés ou liens)", plural(*moved, "fichier déplacé", "fichiers déplacés"), plural(*taken, "laissé car sa place est prise", "laissés car leur place est prise"), n(*in_place), plural(*left, "laissé tel quel", "laissés tels quels"))
            };
    /// `organize_undo` put back what it could of run `run`.
    OrganizeUndone { run: i64, moved_back: u64, skipped: u64 } => format!("Organize run {run} undone: {} put back, {skipped} not", files_en(*moved_back)),
        format!("rangement {run} annulé : {}, {} non", plural(*moved_back, "fichier remis en place", "fichiers remis en place"), n(*skipped));
    /// A file an undo left where it is, and why.
    OrganizeNotBack { why: NotBack } => match why {
                NotBack::Gone => "not put back: it is no longer where the organize run put it",
                NotBack::Taken => "not put back: another file holds its old place",
                NotBack::Failed => "not put back: the move failed (the log says why)",
            }
            ,
        match why {
                NotBack::Gone => "non remis en place : il n'est plus là où le rangement l'avait mis",
                NotBack::Taken => "non remis en place : un autre fichier occupe sa place d'origine",
                NotBack::Failed => "non remis en place : le déplacement a échoué (voir le journal)",
            }
            ;
    /// The run was undone already: nothing of it is left to put back.
    OrganizeRunUndone { run: i64 } => format!("Organize run {run} is already undone."),
        format!("le rangement {run} est déjà annulé");
    DedupeDone { superseded: u64, duplicates: u64, bytes: u64 } => format!("{superseded} superseded and {duplicates} duplicate {} moved to the trash ({})", EN.agree(*superseded + *duplicates, "file", "files"), EN.count(*bytes, "byte", "bytes")),
        format!("{} et {} mis à la corbeille ({})", plural(*superseded, "fichier remplacé", "fichiers remplacés"), plural(*duplicates, "doublon", "doublons"), octets(*bytes));
    VerifyDone { sound: u64, damaged: u64, unverifiable: u64 } => format!("{} sound, {damaged} damaged, {unverifiable} that could not be verified", EN.count(*sound, "file", "files")),
        format!(
                "{}, {}, {}",
                plural(*sound, "fichier sain", "fichiers sains"),
                plural(*damaged, "endommagé", "endommagés"),
                plural(*unverifiable, "impossible à vérifier", "impossibles à vérifier")
            );
    /// The verify task will not start: without the console keys no CNMT can be read.
    VerifyNeedsKeys => "Verifying needs the console keys (prod.keys), and none are loaded; nothing was verified.",
        "la vérification demande les clés de console (prod.keys), et aucune n'est chargée ; rien n'a été vérifié";
    /// The compress task will not start: without the console keys nothing decrypts.
    CompressNeedsKeys => "Compressing needs the console keys (prod.keys), and none are loaded; nothing was compressed.",
        "la compression demande les clés de console (prod.keys), et aucune n'est chargée ; rien n'a été compressé";
    TaskStopped => "The service stopped while this task was running.",
        "le service s'est arrêté pendant cette tâche";
    // Why one file of a task failed.
    FolderUnreadable { folder: String } => format!("the folder {folder} could not be read"),
        format!("le dossier {folder} est illisible");
    PlatformFolderRefused => "a platform folder is a link or hidden and was not walked",
        "un dossier de plateforme est un lien ou un dossier caché ; il n'a pas été parcouru";
    NameNotUtf8 => "a file name that is not valid UTF-8 was skipped",
        "un nom de fichier qui n'est pas de l'UTF-8 valable a été ignoré";
    FileUnexaminable => "the file could not be examined",
        "le fichier n'a pas pu être examiné";
    FileDamaged { detail: Detail } => format!("the file is damaged or not a valid container ({detail})"),
        format!("le fichier est endommagé ou n'est pas un conteneur valable ({})", detail.french());
    /// `verify` found an NCA of the file damaged (`detail`: why an NCZ does not
    /// decompress); `more` other NCAs of the file are damaged too.
    NcaDamaged { nca: String, what: NcaFault, detail: Detail, more: u32 } => nca_damaged_english(nca, *what, detail, *more),
        nca_damaged_french(nca, *what, detail, *more);
    /// `verify` could not check the file; it is neither marked nor cleared. `nca`
    /// names the NCA concerned, or is empty; `detail` is the key revision (such as
    /// `0x12`) of `missing_key`, and why for `malformed`.
    NotVerifiable { what: VerifyGap, nca: String, detail: Detail } => not_verifiable_english(*what, nca, detail),
        not_verifiable_french(*what, nca, detail);
    /// A FIFO, a socket, a device… where a game file should be: `what` is `fifo`,
    /// `socket`, `device`, `folder` or `other` (`library::safe::NotAFile`).
    NotAFile { key: String, what: String } => {
                let what = match what.as_str() {
                    "fifo" => "a named pipe (FIFO)",
                    "socket" => "a socket",
                    "device" => "a device",
                    "folder" => "a folder",
                    _ => "something else",
                };
                format!("{key} is {what}, not a regular file; it is neither read nor moved")
            },
        {
                let what = match what.as_str() {
                    "fifo" => "un tube nommé (FIFO)",
                    "socket" => "une socket",
                    "device" => "un périphérique",
                    "folder" => "un dossier",
                    _ => "autre chose",
                };
                format!("{key} est {what}, pas un fichier ordinaire ; il n'est ni lu ni déplacé")
            };
    // Starting the service.
    /// A command other than `serve` and `demo-library` was given a data folder that
    /// does not exist (run in the wrong folder): it creates none.
    NoDataFolder { folder: String } => format!("the data folder {folder} does not exist: run the command where it is, name it with --data (or LUDOTHEQUE_DATA), or start the service once (ludotheque serve), which creates it"),
        format!("le dossier de données {folder} n'existe pas : lancez la commande là où il est, nommez-le avec --data (ou LUDOTHEQUE_DATA), ou démarrez une première fois le service (ludotheque serve), qui le crée");
    DataFolderPrivate => "the data folder cannot be made private",
        "le dossier de données ne peut pas être rendu privé";
    FolderUnusable { what: String } => format!("the {what} folder cannot be created or opened"),
        format!("le dossier {} ne peut être ni créé ni ouvert", match what.as_str() { "data" => "de données", "work" => "de travail", _ => "de la bibliothèque" });
    FolderNameBad { name: String } => format!("“{name}” cannot name a library folder: a name is not empty, '.' or '..', does not start with '.' and holds no '/', no '=' and no control character (name a folder whose path holds '=' with NAME=DIR)."),
        format!("« {name} » ne peut pas nommer un dossier de la bibliothèque : un nom n'est ni vide, ni « . », ni « .. », ne commence pas par « . » et ne contient ni « / », ni « = », ni caractère de contrôle (nommez un dossier dont le chemin contient « = » avec NOM=DOSSIER).");
    FolderNameTaken { name: String } => format!("“{name}” is already the name of another library folder, or of a file or folder at the top of the first one: give this folder another name."),
        format!("« {name} » est déjà le nom d'un autre dossier de la bibliothèque, ou d'un fichier ou dossier à la racine du premier : donnez un autre nom à ce dossier.");
    FoldersOverlap { name: String, other: String } => format!("The library folder “{name}” overlaps “{other}”: one lies inside the other, or they are the same folder."),
        format!("le dossier de la bibliothèque « {name} » chevauche « {other} » : l'un est dans l'autre, ou c'est le même dossier.");
    DataInsideFolder { name: String } => format!("The data folder lies inside the library folder “{name}”: only the first library folder may hold it."),
        format!("le dossier de données est dans le dossier de la bibliothèque « {name} » : seul le premier dossier de la bibliothèque peut le contenir.");
    AtLeastOne => "--workers, --queue, --max-connections, --shop-downloads and --shop-downloads-total must be at least 1",
        "--workers, --queue, --max-connections, --shop-downloads et --shop-downloads-total valent au moins 1";
    TimeoutsAtLeastOne => "--idle-timeout-secs, --request-timeout-secs and --write-timeout-secs must be at least 1",
        "--idle-timeout-secs, --request-timeout-secs et --write-timeout-secs valent au moins 1";
    RatesPositive => "rate limits must be positive (--key-rate, --key-burst, --auth-failures-per-minute)",
        "les limites de débit sont positives (--key-rate, --key-burst, --auth-failures-per-minute)";
    UnknownUser { name: String } => format!("--local-access-users: no user of this machine is named {name:?}"),
        format!("--local-access-users : aucun utilisateur de cette machine ne s'appelle « {name} »");
    CannotListen { address: String } => format!("cannot listen on {address}"),
        format!("impossible d'écouter sur {address}");
    // The command line's own.
    TaskInterrupted { task: Task, done: u64, total: u64, unit: Unit } => format!("the {task} task was interrupted ({done} {unit} of {total})"),
        format!("la tâche {task} a été interrompue ({} sur {})", amount(*done, *unit), n(*total));
    TaskFailed { task: Task, message: String } => format!("the {task} task failed: {message}"),
        format!("la tâche {task} a échoué : {message}");
    /// A command handed to the running service found its slot taken.
    TaskRunning { task: Task, by: StartedBy } => format!("A task is already running: {task}, started by {by}; retry when it has finished."),
        format!("une tâche est déjà en cours : {task}, lancée par {by} ; réessayez quand elle sera finie");
    /// The service closed a command's connection before starting its task.
    HandoffRefused => "The running service closed the connection without starting the task; its log says why.",
        "le service en cours a fermé la connexion sans lancer la tâche ; son journal dit pourquoi";
    /// A command's connection to the service ended before the task's result.
    HandoffLost => "The connection to the running service was lost before the task ended; the task goes on in the service (see its Tasks page).",
        "la connexion au service en cours a été perdue avant la fin de la tâche ; la tâche continue dans le service (voir sa page Tâches)";
    CannotOpen { file: String } => format!("{file} cannot be opened"),
        format!("le fichier {file} ne peut pas être ouvert");
    BadTitleFile { file: String, reason: Detail } => format!("{file} is not readable title data: {reason}; the previous data is kept"),
        format!("{file} n'est pas un fichier de données de titres lisible : {} ; les données précédentes sont conservées", reason.french());
    NotTitleFile { file: String } => format!("the file {file} is none of the title data files (versions.txt, versions.json, or a region file such as US.en.json)"),
        format!("le fichier {file} n'est aucun des fichiers de données de titres (versions.txt, versions.json, ou un fichier de région comme US.en.json)");
    /// `id` as the client sent it, cut short (`text::cut`) by whoever builds it.
    NoTitle { id: String } => format!("No title in the library has the ID {id}."),
        format!("aucun titre de la bibliothèque n'a l'identifiant {id}");
    BadTitleStatus => "status must be update_available, dlc_missing, base_missing, base_damaged, complete or unknown.",
        "status doit valoir update_available, dlc_missing, base_missing, base_damaged, complete ou unknown";
    BadRegion => "A region is two letters, a dot and two letters, such as US.en.",
        "une région s'écrit deux lettres, un point et deux lettres, comme US.en";
    BadTitleUrl => "The title data URL must be http(s), without a query.",
        "l'adresse des données de titres doit être en http(s), sans requête";
    BadWebhookUrl => "The webhook URL must be http(s) with a host, without blanks.",
        "l'adresse du webhook doit être en http(s), avec un hôte, sans espace";
    // `ludotheque health`.
    BadHealthUrl => "--url must be the service's base URL, http(s)://HOST:PORT, without a query.",
        "--url doit être l'adresse de base du service, http(s)://HÔTE:PORT, sans requête";
    HealthPortZero => "The service listens on port 0 (a free port it picks): give its address with --url.",
        "le service écoute sur le port 0 (un port libre qu'il choisit) : donnez son adresse avec --url";
    HealthUnreachable { url: String } => format!("The service at {url} does not answer."),
        format!("le service à l'adresse {url} ne répond pas");
    Unhealthy { url: String, status: u16 } => format!("The service at {url} answered {status} to its health check."),
        format!("le service à l'adresse {url} a répondu {status} à sa vérification de santé");
    HealthNotOk { url: String } => format!("The service at {url} did not answer its health check with status ok."),
        format!("le service à l'adresse {url} n'a pas répondu « ok » à sa vérification de santé");
    WebhookSecretAlone => "A webhook secret needs a webhook URL.",
        "un secret de webhook demande une adresse de webhook";
    WebhookUrlFile => "The webhook URL file cannot be read.",
        "le fichier de l'adresse du webhook ne peut pas être lu";
    // Notifications (`notify`): setting targets up, then what the messages say.
    NotifyFile => "The notification targets file cannot be read.",
        "le fichier des destinataires de notifications ne peut pas être lu";
    BadPublicUrl => "--public-url must be an http(s) address with a host, in ASCII (an international name in its xn-- form), without blanks.",
        "--public-url doit être une adresse http(s) avec un hôte, en ASCII (un nom international sous sa forme xn--), sans blanc";
    BadNotifyUrl { shown: String } => format!("{shown} is not a notification target: use ntfy://, ntfys://, gotify://, gotifys://, discord://, tgram://, json:// or jsons:// (NOTIFICATIONS in ludotheque-serve(1))."),
        format!("{shown} n'est pas un destinataire de notifications : utilisez ntfy://, ntfys://, gotify://, gotifys://, discord://, tgram://, json:// ou jsons:// (NOTIFICATIONS dans ludotheque-serve(1))");
    NoNotifyTarget => "No notification target has that id.",
        "aucun destinataire de notifications n'a cet identifiant";
    NotifyTargetFixed => "This target was given at start (--notify or --notify-file): remove it there.",
        "ce destinataire a été donné au démarrage (--notify ou --notify-file)  : c'est là qu'il faut le retirer";
    NotifyFailed { reason: String } => format!("The test message could not be sent: {reason}."),
        format!("le message de test n'a pas pu être envoyé : {reason}");
    NotifySent => "Test message sent.",
        "message de test envoyé";
    NotifyTestRunning => "A test message is being sent: wait for its answer, then try again.",
        "un message de test est en cours d'envoi : attendez sa réponse, puis réessayez";
    NoteNewGames { count: u64, names: String } => format!("{} new in the library: {names}", EN.count(*count, "title", "titles")),
        format!("{} dans la bibliothèque : {names}", match count { 1 => "1 nouveau titre".to_string(), n => format!("{} nouveaux titres", FR.number(*n)) });
    NoteUpdates { count: u64, names: String } => format!("{} in the library {} updates or DLC you do not have: {names}", EN.count(*count, "title", "titles"), EN.agree(*count, "has", "have")),
        format!("{} de la bibliothèque {} des mises à jour ou des DLC que vous n'avez pas : {names}", plural(*count, "titre", "titres"), agree(*count, "a", "ont"));
    NoteTaskEnded { task: Task, failed: bool, message: Box<Msg> } => format!("The {} task {}: {}", super::i18n::M::of_task(*task).get(crate::words::Lang::En).to_lowercase(), if *failed { "failed" } else { "ended with errors" }, message.english()),
        format!("la tâche {} {} : {}", super::i18n::M::of_task(*task).get(crate::words::Lang::Fr).to_lowercase(), if *failed { "a échoué" } else { "s'est terminée avec des erreurs" }, message.french());
    NoteDamaged { count: u64 } => format!("{} found damaged.", EN.count(*count, "file", "files")),
        plural(*count, "fichier endommagé trouvé", "fichiers endommagés trouvés");
    NoteLibraryOffline => "The library's folder is missing or unreadable: is its disk mounted?",
        "le dossier de la bibliothèque est absent ou illisible : son disque est-il monté ?";
    NoteSaveBackedUp { console: String, title: String } => format!("{console} backed up its save of {title}."),
        format!("{console} a sauvegardé sa partie de {title}");
    NoteLowSpace { library: bool, percent: u64, free: u64 } => format!("The {} disk has only {percent}% free ({}).", if *library { "library's" } else { "data folder's" }, EN.size(*free)),
        format!("il ne reste que {percent} % de place ({}) sur le disque {}", FR.size(*free), if *library { "de la bibliothèque" } else { "du dossier de données" });
    NoteTest => "Notifications from Ludothèque reach you here.",
        "Les notifications de Ludothèque vous parviennent ici.";
    BadOrganizeTemplate => "The organize template must be a relative path ending in .{ext}, with only the placeholders {name}, {dlc_name}, {title_id}, {base_title_id}, {version}, {type} and {ext}.",
        "le modèle de rangement doit être un chemin relatif finissant par .{ext}, avec pour seuls champs {name}, {dlc_name}, {title_id}, {base_title_id}, {version}, {type} et {ext}";
    NoOrganizeRun => "No organize run has that number.",
        "aucun rangement n'a ce numéro (voir « ludotheque organize --list »)";
    BadMissingKind => "kind must be update or dlc.",
        "kind doit valoir update ou dlc";
    BadMissingFormat => "format must be csv or json (or left out for pages).",
        "format doit valoir csv ou json (ou être omis pour des pages)";
    TitleSourceDown { file: String, reason: Detail } => format!("{file} could not be fetched: {reason}; the previous data is kept"),
        format!("{file} n'a pas pu être téléchargé : {} ; les données précédentes sont conservées", reason.french());
    FileExists { file: String } => format!("{file} already exists; choose another file"),
        format!("{file} existe déjà ; choisissez un autre fichier");
    CannotCreate { file: String } => format!("{file} cannot be created"),
        format!("{file} ne peut pas être créé");
    BackupFailed { file: String } => format!("the backup to {file} failed"),
        format!("la sauvegarde vers {file} a échoué");
    PasswordUnreadable { reason: String } => format!("reading the password: {reason}"),
        format!("lecture du mot de passe : {reason}");
    PasswordsDiffer => "the two passwords differ",
        "les deux mots de passe diffèrent";
    // Administering from the browser: accounts, restore under another name.
    LastAdmin => "The last admin can be neither removed nor made a viewer: make another account an admin first.",
        "le dernier administrateur ne peut être ni supprimé ni rendu lecteur : faites d'abord d'un autre compte un administrateur";
    NotOnYourself => "An admin cannot remove, demote or reset their own account: another admin can (your own password changes with the form above).",
        "un administrateur ne peut pas supprimer, rétrograder ni réinitialiser son propre compte : un autre administrateur le peut (votre mot de passe se change avec le formulaire plus haut)";
    BadRestoreName { ext: String } => format!("The new name is a file name only (no '/', not '..'), 1 to 255 bytes, ending in .{ext} like the file."),
        format!("le nouveau nom est un nom de fichier seul (sans « / », ni « .. »), de 1 à 255 octets, finissant par .{ext} comme le fichier");
    // The user's console keys (prod.keys): never a key's value, only names and lines.
    ConsoleKeysLine { line: u64, why: KeysLine } => format!("Line {line} of the console keys file is malformed: {}.", keys_line_english(why)),
        format!("la ligne {line} du fichier de clés de console est mal formée : {}", keys_line_french(why));
    ConsoleKeysEmpty => "The console keys file holds none of the keys the service uses (header_key, master_key_XX, key_area_key_application_XX, titlekek_XX and the sources): is it prod.keys as Lockpick_RCM writes it?",
        "le fichier de clés de console ne contient aucune des clés dont le service se sert (header_key, master_key_XX, key_area_key_application_XX, titlekek_XX et les sources) : est-ce bien le prod.keys qu'écrit Lockpick_RCM ?";
    ConsoleKeysTooLarge { limit: u64 } => format!("The console keys file is larger than {limit} bytes: it is not a prod.keys file."),
        format!("le fichier de clés de console dépasse {} : ce n'est pas un fichier prod.keys", octets(*limit));
    ConsoleKeysNotWritten => "The console keys file could not be written; the previous one is unchanged.",
        "le fichier de clés de console n'a pas pu être écrit ; le précédent est intact";
    ConsoleKeysUnreadable => "The console keys file cannot be read (its permissions?); the details are in the log.",
        "le fichier de clés de console ne peut pas être lu (ses droits ?) ; le détail est dans le journal";
    ConsoleKeysLink => "Refused: the console keys file in the data folder is a symbolic link, and it was not read. Import the file itself (“ludotheque keys import FILE”), or name it with --keys.",
        "refusé : le fichier de clés de console du dossier de données est un lien symbolique, et il n'a pas été lu ; importez le fichier lui-même (« ludotheque keys import FICHIER »), ou nommez-le avec --keys";
    // The web pages' sentences with values, said in the reader's language
    // (`error::i18n::Lang::msg`); the page words without values are `error::i18n::M`.
    StartedByUser { name: String } => format!("started by {name}"),
        format!("lancée par {name}");
    StartedByKey { name: String } => format!("started by the API key “{name}”"),
        format!("lancée par la clé d'API « {name} »");
    FirstScan { done: u64, total: u64 } => format!("First scan under way ({} / {})", EN.number(*done), EN.number(*total)),
        format!("Première analyse en cours ({} / {})", n(*done), n(*total));
    TimeLeft { secs: u64 } => format!("about {} left", duration(*secs)),
        format!("encore {} environ", duration(*secs));
    ConvertRoom { files: u64, needed: u64, free: u64 } => format!("{} to decompress: {} once decompressed (the originals stay in the trash); {} free on the library's disk.", files_en(*files), EN.size(*needed), EN.size(*free)),
        format!("{} à décompresser : {} une fois décompressés (les originaux restent dans la corbeille) ; {} libres sur le disque de la bibliothèque.", files_fr(*files), octets(*needed), octets(*free));
    KeysNeedRevision { files: u64, revision: String } => format!("{} {} key revision 0x{revision}: add master_key_{revision} or key_area_key_application_{revision}.", files_en(*files), EN.agree(*files, "needs", "need")),
        format!("{} {} la révision de clés 0x{revision} : ajoutez master_key_{revision} ou key_area_key_application_{revision}.", files_fr(*files), agree(*files, "demande", "demandent"));
    KeysWrongHeader { files: u64 } => format!("{} {} not decrypt with these keys: is header_key the right one?", files_en(*files), EN.agree(*files, "does", "do")),
        format!("{} {} pas avec ces clés : header_key est-elle la bonne ?", files_fr(*files), agree(*files, "ne se déchiffre", "ne se déchiffrent"));
    KeysSuspect { names: String } => format!("These keys do not match their public checksum (CRC32) and may be mistyped: {names}. The file is used as is."),
        format!("Ces clés ne correspondent pas à leur somme de contrôle publique (CRC32) et ont peut-être été mal recopiées : {names}. Le fichier est utilisé tel quel.");
    ConfirmPurgeOne { name: String, bytes: u64 } => format!("Delete “{name}” ({}) for good?", EN.size(*bytes)),
        format!("Supprimer définitivement « {name} » ({}) ?", octets(*bytes));
    ConfirmPurgeConverted { files: u64, bytes: u64 } => format!("Delete the decompressed .nsz/.xcz for good: {}, {}? Their decompressed files stay in the library.", files_en(*files), EN.size(*bytes)),
        format!("Supprimer définitivement les .nsz/.xcz décompressés : {}, {} ? Leurs versions décompressées restent dans la bibliothèque.", files_fr(*files), octets(*bytes));
    ConfirmEmptyTrash { files: u64, bytes: u64 } => format!("Empty the trash: delete {}, {} for good?", files_en(*files), EN.size(*bytes)),
        format!("Vider la corbeille : supprimer définitivement {}, {} ?", files_fr(*files), octets(*bytes));
    Freed { files: u64, bytes: u64 } => format!("{} for good: {} freed.", EN.count(*files, "file deleted", "files deleted"), EN.size(*bytes)),
        format!("{} définitivement : {} libérés.", plural(*files, "fichier supprimé", "fichiers supprimés"), octets(*bytes));
    ConfirmNewConsolePassword { name: String } => format!("Give {name} a new password? The old one stops working at once; the new one is shown once."),
        format!("Donner un nouveau mot de passe à « {name} » ? L'ancien cesse de fonctionner tout de suite ; le nouveau est affiché une seule fois.");
    ConfirmRemoveConsole { name: String } => format!("Remove the console “{name}”? Its password will no longer open the shop."),
        format!("Retirer la console « {name} » ? Son mot de passe n'ouvrira plus la boutique.");
    ConfirmTrashSave { name: String } => format!("Move “{name}” to the trash? It can be restored from there."),
        format!("Mettre « {name} » à la corbeille ? On peut l'en restaurer.");
    SavesAdminOnly => "Only an admin can download a console's saves.",
        "seul un administrateur télécharge les sauvegardes d'une console";
    NameConflict { named: String, holds: String } => format!("Named {named}, holds {holds}: the contents win."),
        format!("Nommé {named}, contient {holds} : le contenu l'emporte.");
    ConfirmRemoveFolder { name: String } => format!("Take the folder “{name}” out of the library? Its files stay on disk but leave the library."),
        format!("Retirer le dossier « {name} » de la bibliothèque ? Ses fichiers restent sur le disque mais quittent la bibliothèque.");
    ConfirmRemovePlatform { name: String } => format!("Remove the platform “{name}”? Its files stay on disk but leave the library."),
        format!("Retirer la plateforme « {name} » ? Ses fichiers restent sur le disque mais quittent la bibliothèque.");
    ConfirmMakeViewer { name: String } => format!("Make “{name}” a viewer? The account will no longer change anything."),
        format!("Rendre « {name} » lecteur ? Ce compte ne pourra plus rien changer.");
    ConfirmRemoveAccount { name: String } => format!("Remove the account “{name}”? Its sessions will end."),
        format!("Supprimer le compte « {name} » ? Ses sessions seront fermées.");
    ConfirmRevokeKey { name: String } => format!("Revoke the API key “{name}”? Scripts that use it will be refused."),
        format!("Révoquer la clé d'API « {name} » ? Les scripts qui s'en servent seront refusés.");
    /// The tasks panel's question before a convert of the whole library.
    ConvertAllAsk { files: u64 } => format!("Decompress {} of the library, .nsz/.xcz to .nsp/.xci?", files_en(*files)),
        format!("Décompresser {} de la bibliothèque, .nsz/.xcz en .nsp/.xci ?", files_fr(*files));
    /// The tasks panel's question before a compress of the whole library.
    CompressAllAsk { files: u64, bytes: u64 } => format!("Compress {} of the library ({}), .nsp/.xci to .nsz/.xcz? Each original goes to the trash once its copy is written.", files_en(*files), EN.size(*bytes)),
        format!("Compresser {} de la bibliothèque ({}), .nsp/.xci en .nsz/.xcz ? Chaque original va à la corbeille une fois sa copie écrite.", files_fr(*files), octets(*bytes));
    CompressEstimate { low: u64, high: u64, bytes: u64 } => format!("Estimated saving: {} to {} of {} (35–50%; an estimate, the real saving depends on the games).", EN.size(*low), EN.size(*high), EN.size(*bytes)),
        format!("Gain estimé : {} à {} sur {} (35 à 50 % ; une estimation, le gain réel dépend des jeux).", octets(*low), octets(*high), octets(*bytes));
    CompressSaved { saved: u64, trash: u64 } => format!("Last compress: {} saved; the trash holds {} (the originals there free nothing until purged).", EN.size(*saved), EN.size(*trash)),
        format!("Dernière compression : {} gagnés ; la corbeille occupe {} (les originaux n'y libèrent rien avant d'être purgés).", octets(*saved), octets(*trash));
    OrganizeUndoAsk { run: i64, files: u64 } => format!("Put the files of run #{run} ({}) back where they were?", files_en(*files)),
        format!("Remettre là où ils étaient les fichiers du rangement n°\u{a0}{run} ({}) ?", files_fr(*files));
    PlanMore { more: u64 } => format!("… and {} more", EN.number(*more)),
        format!("… et {} de plus", n(*more));
    DedupeKeptNote { what: String, key: String } => format!("{what}; copy kept: {key}"),
        format!("{what} ; copie gardée : {key}");
    DedupeAsk { files: u64, bytes: u64 } => format!("Move {} ({}) to the trash?", files_en(*files), EN.size(*bytes)),
        format!("Mettre {} ({}) à la corbeille ?", files_fr(*files), octets(*bytes));
    DedupeAskText { days: u32, bytes: u64 } => format!("Each can be restored from the trash for {days} days; the space ({}) is freed when the trash purges them.", EN.size(*bytes)),
        format!("Chacun pourra être restauré depuis la corbeille pendant {days} jours ; l'espace ({}) est libéré quand la corbeille les efface.", octets(*bytes));
    OrganizeAsk { files: u64 } => format!("Move {}?", files_en(*files)),
        format!("Déplacer {} ?", files_fr(*files));
    ConfirmClearPush { files: u64, bytes: u64 } => format!("Remove {} ({}) from the push list? They stay in the library.", EN.count(*files, "file", "files"), EN.size(*bytes)),
        format!("Retirer de la liste d'envoi {} ({}) ? Ils restent dans la bibliothèque.", plural(*files, "fichier", "fichiers"), octets(*bytes));
    /// Where an empty library's files go: the library folder, by its own name.
    WhereGamesGo { folder: String } => format!("Put your game files (.nsp, .nsz, .xci, .xcz) in the library folder, “{folder}” (the one --library names), in any subfolders you like."),
        format!("Déposez vos fichiers de jeux (.nsp, .nsz, .xci, .xcz) dans le dossier de la bibliothèque, « {folder} » (celui que nomme --library), dans les sous-dossiers de votre choix.");
    /// Organize's template is set by `--organize-template`.
    TemplateByFlag => "The organize template is set at startup with --organize-template, which overrides Settings.",
        "le modèle du rangement se règle au lancement avec --organize-template, qui l'emporte sur les Réglages";
    /// The trash's retention is set by `--trash-retention-days`.
    RetentionByFlag => "The trash's retention is set at startup with --trash-retention-days, which overrides Settings.",
        "la conservation de la corbeille se règle au lancement avec --trash-retention-days, qui l'emporte sur les Réglages";
    BadRetention => "days must be a whole number from 1 to 3650.",
        "days doit être un nombre entier de 1 à 3650";
    /// How many files a task could not handle.
    FilesFailed { files: u64 } => EN.count(*files, "file failed", "files failed"),
        plural(*files, "fichier en échec", "fichiers en échec");
    /// An upload of title data files: too many, none, no room, and what is known after.
    TooManyTitleFiles { max: usize } => format!("At most {max} title data files at once: versions.txt, versions.json and a region file are enough."),
        format!("au plus {max} fichiers de données de titres à la fois : versions.txt, versions.json et un fichier de région suffisent");
    NoTitleFiles => "The upload holds no file: choose versions.txt, versions.json or a region file such as US.en.json.",
        "la requête ne contient aucun fichier : choisissez versions.txt, versions.json ou un fichier de région comme US.en.json";
    TitleDiskFull => "The disk of the data folder is full: nothing was imported.",
        "le disque du dossier de données est plein : rien n'a été importé";
    TitlesKnownNow { titles: u64 } => format!("{} known now.", EN.count(*titles, "title", "titles")),
        format!("{} désormais.", plural(*titles, "titre connu", "titres connus"));
    /// The address typed in the listen field is not `IP:PORT`.
    BadListenAddress { address: String } => format!("“{address}” is not an address to listen on: write an IP address and a port, such as 0.0.0.0:8080 (every interface) or 127.0.0.1:8080 (this machine only)."),
        format!("« {address} » n'est pas une adresse d'écoute : écrivez une adresse IP et un port, comme 0.0.0.0:8080 (tous les réseaux) ou 127.0.0.1:8080 (cette machine seulement)");
    /// Another program listens on that port.
    ListenInUse { address: String } => format!("cannot listen on {address}: another program uses that port."),
        format!("impossible d'écouter sur {address} : un autre programme utilise ce port");
    /// Where the service listens is set by `--listen` or `LUDOTHEQUE_LISTEN`.
    ListenByFlag => "The address is set at startup with --listen or LUDOTHEQUE_LISTEN, which overrides this page.",
        "l'adresse se règle au lancement avec --listen ou LUDOTHEQUE_LISTEN, qui l'emporte sur cette page";
    /// The service moved: where it listens now.
    ListeningOn { address: String } => format!("Now listening on {address}."),
        format!("Le service écoute désormais sur {address}.");
    /// What the console keys identified in the last scan.
    FilesIdentified { files: u64 } => format!("{} identified with the console keys.", EN.count(*files, "file", "files")),
        format!("{} avec les clés de console.", plural(*files, "fichier identifié", "fichiers identifiés"));
    /// Files just added to the push list, and how many it holds now.
    AddedToPush { files: u64, total: u64 } => format!("{} added to the push list, which now holds {total}.", EN.count(*files, "file", "files")),
        format!("{} à la liste d'envoi, qui en compte {total}.", plural(*files, "fichier ajouté", "fichiers ajoutés"));
    ConfirmForgetDevice { name: String, host: String } => format!("Forget the console “{name}” ({host})? The push list is kept."),
        format!("Oublier la console « {name} » ({host}) ? La liste d'envoi est gardée.");
    ShopDefaultMessage { files: u64 } => format!("Ludothèque · {}", files_en(*files)),
        format!("Ludothèque · {}", files_fr(*files));
    }
}

catalogue! {
    /// What the command line prints (`cli`), in its language (`cli::out::lang`): a
    /// sentence said once and never kept or sent, so, unlike a [`Msg`], no data.
    #[derive(Debug)]
    Line {
    InternalError => "internal error of ludotheque",
        "erreur interne de ludotheque";
    Error { message: String } => format!("error: {message}"),
        format!("erreur : {message}");
    Cause { cause: String } => format!("detail: {cause}"),
        format!("détail : {cause}");
    Usage { usage: String } => format!("Usage: {usage}"),
        format!("Utilisation : {usage}");
    UsageMore => "For more information, try “--help”.",
        "Pour en savoir plus : « --help ».";
    UsageUnknownArgument { arg: String } => format!("unexpected argument “{arg}”"),
        format!("argument inattendu « {arg} »");
    UsageUnknownCommand { name: String } => format!("unknown command “{name}”"),
        format!("commande inconnue « {name} »");
    UsageNeedsValue { arg: String } => format!("“{arg}” needs a value"),
        format!("« {arg} » demande une valeur");
    UsageBadValue { arg: String, value: String } => format!("invalid value “{value}” for “{arg}”"),
        format!("valeur « {value} » invalide pour « {arg} »");
    UsageMissing { arg: String } => format!("a required argument is missing: {arg}"),
        format!("argument requis absent : {arg}");
    UsageNeedsCommand { name: String } => format!("“{name}” needs a command"),
        format!("« {name} » demande une commande");
    UsageOnce { arg: String } => format!("“{arg}” can be given only once"),
        format!("« {arg} » ne peut être donné qu'une fois");
    UsageConflict { arg: String, prior: String } => format!("“{arg}” cannot be given with “{prior}”"),
        format!("« {arg} » ne peut pas être donné avec « {prior} »");
    UsageExtraValue { arg: String, value: String } => format!("unexpected value “{value}” for “{arg}”"),
        format!("valeur « {value} » en trop pour « {arg} »");
    UsageValueCount { arg: String } => format!("“{arg}” has the wrong number of values"),
        format!("« {arg} » n'a pas le bon nombre de valeurs");
    UsageNoEquals { arg: String } => format!("“{arg}” needs an = sign before its value"),
        format!("« {arg} » demande un signe = avant sa valeur");
    UsageNotUtf8 => "an argument is not valid UTF-8",
        "un argument n'est pas de l'UTF-8 valide";
    UsageInvalid => "the command line is not valid",
        "la ligne de commande n'est pas valide";
    UsageValues { values: String } => format!("; possible values: {values}"),
        format!(" ; valeurs possibles : {values}");
    UsageCommands { commands: String } => format!("; commands: {commands}"),
        format!(" ; commandes : {commands}");
    UsageDidYouMean { suggested: String } => format!("; did you mean “{suggested}”?"),
        format!(" ; vouliez-vous dire « {suggested} » ?");
    UsageWhy { why: String } => format!(" ({why})"),
        format!(" ({why})");
    RememberedLibrary { library: String } => format!("Library: {library} (the one the service last ran with; --library names another)"),
        format!("Bibliothèque : {library} (celle du dernier lancement du service ; --library en nomme une autre)");
    DemoWritten { dir: String, files: u64 } => format!("Demo library written to {dir}: {}.", files_en(*files)),
        format!("Bibliothèque de démonstration écrite dans {dir} : {}.", files_fr(*files));
    DemoTitleDataImported { data: String } => format!("Its title data is imported (data folder {data})."),
        format!("Ses données de titres sont importées (dossier de données {data}).");
    DemoTitleDataKept { dir: String } => format!("The data folder already has title data: the demo's is in {dir}."),
        format!("Le dossier de données a déjà des données de titres : celles de la démo sont dans {dir}.");
    DemoTryIt { data: String, library: String } => format!("Run “ludotheque --data {data} --library {library} serve” to try it."),
        format!("Lancez « ludotheque --data {data} --library {library} serve » pour l'essayer.");
    TaskDone { task: Task, said: String } => format!("Task {task} succeeded: {said}."),
        format!("Tâche {task} réussie : {said}.");
    TaskPartial { task: Task, said: String } => format!("Task {task} finished with errors: {said}."),
        format!("Tâche {task} terminée avec des erreurs : {said}.");
    FileFailed { key: String, why: String } => format!("  {key}: {why}"),
        format!("  {key} : {why}");
    HandedOff { task: Task } => format!("Task {task} handed to the service that uses this data folder; Ctrl-C cancels it."),
        format!("Tâche {task} confiée au service qui utilise ce dossier de données ; Ctrl-C l'annule.");
    Healthy { url: String } => format!("The service at {url} is healthy."),
        format!("Le service à l'adresse {url} est en bonne santé.");
    DeviceSet { name: String, address: String } => format!("Console “{name}” set to {address}."),
        format!("Console « {name} » configurée sur {address}.");
    NoDevice => "No console is set.",
        "Aucune console n'est configurée.";
    DeviceForgotten => "Console forgotten.",
        "Console oubliée.";
    Waiting { games: u64, bytes: u64 } => format!("{}, {} waiting", EN.count(*games, "game", "games"), EN.count(*bytes, "byte", "bytes")),
        format!("{}, {} en attente", plural(*games, "jeu", "jeux"), plural(*bytes, "octet", "octets"));
    PushAdded { key: String } => format!("Added to the push list: {key}"),
        format!("Ajouté à la liste d'envoi : {key}");
    PushRemoved { key: String } => format!("Removed from the push list: {key}"),
        format!("Retiré de la liste d'envoi : {key}");
    Restored { key: String } => format!("Restored: {key}"),
        format!("Restauré : {key}");
    PurgedOne { key: String } => format!("Deleted for good: {key}"),
        format!("Supprimé définitivement : {key}");
    PurgedExpired { entries: u64 } => format!("{} deleted for good.", EN.count(*entries, "expired entry", "expired entries")),
        format!("{} {} définitivement.", plural(*entries, "entrée expirée", "entrées expirées"), agree(*entries, "supprimée", "supprimées"));
    PurgedAll { entries: u64 } => format!("{} deleted for good.", EN.count(*entries, "entry", "entries")),
        format!("{} {} définitivement.", plural(*entries, "entrée", "entrées"), agree(*entries, "supprimée", "supprimées"));
    TrashDates { deleted: String, expires: String } => format!("deleted {deleted}  expires {expires}"),
        format!("supprimé le {deleted}  expire le {expires}");
    FolderListed { name: String, state: String, files: u64, bytes: u64, free: Option<u64>, filesystem: String, kind: String, dir: String } => format!("{name}: {state}, {} ({}){}{filesystem}, {kind}. {dir}", files_en(*files), EN.size(*bytes), free.map(|f| format!(", {} free, ", EN.size(f))).unwrap_or_else(|| ", ".into())),
        format!("{name} : {state}, {} ({}){}{filesystem}, {kind}. {dir}", files_fr(*files), FR.size(*bytes), free.map(|f| format!(", {} libres, ", FR.size(f))).unwrap_or_else(|| ", ".into()));
    TrashTotal { entries: u64, bytes: u64 } => format!("{}, {}.", EN.count(*entries, "entry", "entries"), EN.count(*bytes, "byte", "bytes")),
        format!("{}, {}.", plural(*entries, "entrée", "entrées"), plural(*bytes, "octet", "octets"));
    BackedUp { file: String } => format!("Database backed up to {file}."),
        format!("Base de données sauvegardée dans {file}.");
    BackupNoKeys => "The console keys file (prod.keys) is not in the copy: keep a separate copy of it, or extract it again from your console.",
        "Le fichier de clés de console (prod.keys) n'est pas dans la copie : gardez-en une copie à part, ou extrayez-le de nouveau de votre console.";
    BackedUpSaves { dir: String, files: u64 } => format!("Consoles' save backups ({files} files) copied to {dir}."),
        format!("Sauvegardes des consoles ({}) copiées dans {dir}.", files_fr(*files));
    KeyCreated { name: String, id: i64, read_only: bool } => format!("API key created: {name} (id {id}, {} access)", if *read_only { "read-only" } else { "full" }),
        format!("Clé d'API créée : {name} (id {id}, accès {})", if *read_only { "en lecture seule" } else { "complet" });
    KeyShownOnce => "This key is kept only as a hash (SHA-256): it can never be shown again. Copy it now.",
        "Cette clé n'est conservée que sous forme d'empreinte (SHA-256) : elle ne pourra plus jamais être affichée. Copiez-la maintenant.";
    KeyRevoked { name: String, id: i64, prefix: String } => format!("API key revoked: {name} (id {id}, {prefix})"),
        format!("Clé d'API révoquée : {name} (id {id}, {prefix})");
    KeyWasRevoked { name: String, id: i64 } => format!("The API key {name} (id {id}) was already revoked."),
        format!("La clé d'API {name} (id {id}) était déjà révoquée.");
    NoApiKey => "No API key.",
        "Aucune clé d'API.";
    RevokedOn { date: String } => format!("revoked on {date}"),
        format!("révoquée le {date}");
    AccountCreated { name: String, role: String } => format!("Account created: {name} ({role})"),
        format!("Compte créé : {name} ({role})");
    PasswordChanged { name: String, ended: u64 } => format!("Password changed for {name}; {}.", EN.count(*ended, "session ended", "sessions ended")),
        format!("Mot de passe changé pour {name} ; {}.", plural(*ended, "session fermée", "sessions fermées"));
    AccountDeleted { name: String } => format!("Account deleted: {name}"),
        format!("Compte supprimé : {name}");
    NoAccount => "No account.",
        "Aucun compte.";
    ConsoleAdded { name: String } => format!("Console added: {name}"),
        format!("Console ajoutée : {name}");
    ConsolePasswordOnce => "Enter them in the console's installer (the Consoles page says where, installer by installer). This password is kept only as a hash: it cannot be shown again. Copy it now.",
        "Saisissez-les dans l'installateur de la console (la page Consoles explique où, installateur par installateur). Ce mot de passe n'est conservé que sous forme d'empreinte : il ne pourra plus être affiché. Copiez-le maintenant.";
    NoConsole => "No console: “ludotheque console add NAME” adds one.",
        "Aucune console : « ludotheque console add NOM » en ajoute une.";
    ConsoleRemoved { name: String } => format!("Console removed: {name} (its password no longer works)."),
        format!("Console retirée : {name} (son mot de passe ne fonctionne plus).");
    DedupePreview { files: u64, bytes: u64 } => match files {
            0 => "No superseded file and no duplicate: nothing would go to the trash.".into(),
            _ => format!("{} would go to the trash ({}); “ludotheque dedupe” puts {} there.", files_en(*files), EN.count(*bytes, "byte", "bytes"), EN.agree(*files, "it", "them")),
        },
        match files {
            0 => "Aucun fichier remplacé ni doublon : rien ne partirait à la corbeille.".into(),
            _ => format!("{} {} à la corbeille ({}) ; « ludotheque dedupe » {} met.", files_fr(*files), agree(*files, "partirait", "partiraient"), plural(*bytes, "octet", "octets"), agree(*files, "l'y", "les y")),
        };
    OrganizePreview { moves: u64, taken: u64, in_place: u64, left: u64 } => format!("{}, {} whose place is taken, {} already in place, {} left as they are (unidentified, or links).", EN.count(*moves, "file to move", "files to move"), EN.count(*taken, "file", "files"), EN.number(*in_place), EN.number(*left)),
        format!("{}, {} dont la place est occupée, {} déjà en place, {} {} (non identifiés ou liens).", plural(*moves, "fichier à déplacer", "fichiers à déplacer"), plural(*taken, "fichier", "fichiers"), n(*in_place), n(*left), agree(*left, "laissé tel quel", "laissés tels quels"));
    NoOrganizeRun => "No organize run has moved a file yet.",
        "Aucun rangement n'a encore déplacé de fichier.";
    OrganizeRunState { undone_at: Option<String>, moved: u64, put_back: u64 } => match undone_at {
            Some(at) => format!("undone on {at}, {} put back", EN.number(*put_back)),
            None => format!("{} moved, {} put back", EN.number(*moved), EN.number(*put_back)),
        },
        match undone_at {
            Some(at) => format!("annulé le {at}, {} remis en place", n(*put_back)),
            None => format!("{}, {} remis en place", plural(*moved, "déplacé", "déplacés"), n(*put_back)),
        };
    KeysImported { file: String } => format!("Console keys imported into {file} (mode 0600)."),
        format!("Clés de console importées dans {file} (mode 0600).");
    KeysTakenLive => "A running service takes them into account without a restart.",
        "Un service en marche les prend en compte sans redémarrer.";
    KeysFile { file: String } => format!("Console keys file: {file}"),
        format!("Fichier de clés de console : {file}");
    KeysUnusable { why: String } => format!("This file cannot be used: {why}"),
        format!("Ce fichier n'est pas utilisable : {why}");
    KeysRead { state: KeysState, files: u64 } => format!("{} {}", files_en(*files), match state {
                KeysState::Read => EN.agree(*files, "was read with the keys", "were read with the keys"),
                KeysState::Partial => EN.agree(*files, "was read in part with the keys (name or icon unreadable: see its note)", "were read in part with the keys (name or icon unreadable: see their notes)"),
                KeysState::WrongKeys => EN.agree(*files, "does not decrypt with these keys (is header_key the right one?)", "do not decrypt with these keys (is header_key the right one?)"),
                KeysState::MissingKey => EN.agree(*files, "needs a key revision the keys lack", "need a key revision the keys lack"),
                KeysState::Unreadable => "unreadable with the keys",
            }),
        format!("{} {}", files_fr(*files), match state {
                KeysState::Read => agree(*files, "lu avec les clés", "lus avec les clés"),
                KeysState::Partial => agree(*files, "lu en partie avec les clés (nom ou icône illisibles : voir sa remarque)", "lus en partie avec les clés (nom ou icône illisibles : voir leur remarque)"),
                KeysState::WrongKeys => agree(*files, "ne se déchiffre pas avec ces clés (header_key est-elle la bonne ?)", "ne se déchiffrent pas avec ces clés (header_key est-elle la bonne ?)"),
                KeysState::MissingKey => agree(*files, "demande une révision de clés qui manque", "demandent une révision de clés qui manque"),
                KeysState::Unreadable => agree(*files, "illisible avec les clés", "illisibles avec les clés"),
            });
    ImportedCatalogue { name: String, ids: u64, empty_version: u64, other_console: u64, no_kind: u64 } => format!("{name}: {}; skipped: {} without a version, {} of another console, {} of no type", EN.count(*ids, "title ID", "title IDs"), EN.number(*empty_version), EN.number(*other_console), EN.number(*no_kind)),
        format!("{name} : {} ; ignorés : {} sans version, {} d'une autre console, {} d'aucun type", plural(*ids, "identifiant de titre", "identifiants de titres"), n(*empty_version), n(*other_console), n(*no_kind));
    ImportedHistory { name: String, ids: u64, versions: u64, skipped: u64, oversized: u64, max_kib: u64 } => format!("{name}: {} of {}; {}{}", EN.count(*versions, "dated version", "dated versions"), EN.count(*ids, "ID", "IDs"), EN.count(*skipped, "skipped", "skipped"), oversized_en(*oversized, *max_kib)),
        format!("{name} : {} de {} ; {}{}", plural(*versions, "version datée", "versions datées"), plural(*ids, "identifiant", "identifiants"), plural(*skipped, "ignoré", "ignorés"), oversized_fr(*oversized, *max_kib));
    ImportedRegion { name: String, entries: u64, skipped: u64, oversized: u64, max_kib: u64 } => format!("{name}: {}; {} (without an ID or a name){}", EN.count(*entries, "title imported", "titles imported"), EN.count(*skipped, "skipped", "skipped"), oversized_en(*oversized, *max_kib)),
        format!("{name} : {} ; {} (sans identifiant ou sans nom){}", plural(*entries, "titre importé", "titres importés"), plural(*skipped, "ignoré", "ignorés"), oversized_fr(*oversized, *max_kib));
    Renamed { games: u64 } => format!("{}.", EN.count(*games, "game renamed", "games renamed")),
        format!("{}.", plural(*games, "jeu renommé", "jeux renommés"));
    TitleDataUnchanged => "The title data is up to date: nothing changed at the source.",
        "Les données de titres sont à jour : rien n'a changé à la source.";
    NoTitleData => "No title data imported (ludotheque titles import).",
        "Aucune donnée de titres importée (ludotheque titles import).";
    LastImport { date: String, days: u64, files: String } => format!("Last import: {date} ({}), files: {files}", match days { 0 => "today".to_string(), 1 => "yesterday".to_string(), d => format!("{} ago", EN.count(*d, "day", "days")) }),
        format!("Dernier import : {date} ({}), fichiers : {files}", match days { 0 => "aujourd'hui".to_string(), 1 => "hier".to_string(), d => format!("il y a {}", plural(*d, "jour", "jours")) });
    TitleCounts { known: u64, versions: u64, titles: u64, updates: u64, dlc: u64 } => format!("{}, {}; in the library: {}, {} with an update available, {} with missing DLC.", EN.count(*known, "known title", "known titles"), EN.count(*versions, "version ID", "version IDs"), EN.count(*titles, "title", "titles"), EN.number(*updates), EN.number(*dlc)),
        format!("{}, {} ; dans la bibliothèque : {}, {} avec une mise à jour disponible, {} avec des DLC manquants.", plural(*known, "titre connu", "titres connus"), plural(*versions, "identifiant de version", "identifiants de versions"), plural(*titles, "titre", "titres"), n(*updates), n(*dlc));
    Ignored { title: Option<String>, dlc: bool, updates: bool, counted: bool } => format!("{}: {} {}.", title.as_deref().unwrap_or("Every title"), match (dlc, updates) { (true, true) => "missing DLC and updates", (true, false) => "missing DLC", _ => "updates" }, if *counted { "are counted again" } else { "are no longer counted" }),
        format!("{} : {} {}.", title.as_deref().unwrap_or("tous les titres"), match (dlc, updates) { (true, true) => "les DLC manquants et les mises à jour", (true, false) => "les DLC manquants", _ => "les mises à jour" }, match (dlc, counted) { (true, true) => "sont de nouveau comptés", (true, false) => "ne sont plus comptés", (false, true) => "sont de nouveau comptées", (false, false) => "ne sont plus comptées" });
    Dated { date: String } => format!(" from {date}"),
        format!(" du {date}");
    }
}

/// Why a line of a console keys file was refused. It names a key at most, never
/// holds a value (nor any part of one).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "why", rename_all = "snake_case")]
pub enum KeysLine {
    NotText,
    NoEquals,
    BadName,
    NoValue,
    NotHex,
    OddDigits,
    WrongLength {
        name: String,
        digits: u64,
        expected: u64,
    },
    Twice {
        name: String,
    },
}

/// Why an organize undo left a file where it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NotBack {
    /// It is no longer where the run put it (moved, deleted, or moved by a later run).
    Gone,
    /// Another file is at its old place.
    Taken,
    /// The move failed (the log says why).
    Failed,
}

/// What is wrong with an NCA `verify` found damaged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NcaFault {
    /// Its SHA-256 (or size) is not the one its CNMT records, or not its name's
    /// content ID.
    Mismatch,
    /// A CNMT lists it; the file lacks it.
    Missing,
    /// Shorter than its record, or cut by the end of the file.
    Truncated,
    /// A compressed NCA that does not decompress.
    Unreadable,
}

/// Why `verify` could not check a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VerifyGap {
    NoCnmt,
    NoHeaderKey,
    WrongKeys,
    MissingKey,
    PersonalizedTicket,
    NoTicket,
    Malformed,
    ReadError,
}

/// The sentence every 500 carries; the cause goes to the log.
pub const INTERNAL_MESSAGE: &str =
    "The service encountered an internal error; the details are in its log.";

impl Msg {
    /// The stable name of the message (not of the error's kind).
    pub fn slug(&self) -> String {
        match serde_json::to_value(self) {
            Ok(serde_json::Value::Object(map)) => match map.get("slug") {
                Some(serde_json::Value::String(s)) => s.clone(),
                _ => String::new(),
            },
            _ => String::new(),
        }
    }
}

fn nca_damaged_english(nca: &str, what: NcaFault, detail: &Detail, more: u32) -> String {
    let what = match what {
        NcaFault::Mismatch => format!(
            "the NCA {nca} does not match its content record (SHA-256): it is corrupt or modified"
        ),
        NcaFault::Missing => format!("the NCA {nca}, which its CNMT lists, is not in the file"),
        NcaFault::Truncated => format!("the NCA {nca} is truncated"),
        NcaFault::Unreadable => format!("the NCA {nca} cannot be decompressed ({detail})"),
    };
    match more {
        0 => what,
        n => format!("{what} (and {n} more damaged NCA)"),
    }
}

/// The share of `size` that `compressed` saves, in whole percent (0 when it grows).
pub fn gain_percent(size: u64, compressed: u64) -> u64 {
    (size.saturating_sub(compressed) * 100)
        .checked_div(size)
        .unwrap_or(0)
}

fn not_verifiable_english(what: VerifyGap, nca: &str, detail: &Detail) -> String {
    let why = match what {
        VerifyGap::NoCnmt => "the file holds no CNMT to check its NCAs against".into(),
        VerifyGap::NoHeaderKey => "the console keys have no header_key".into(),
        VerifyGap::WrongKeys => {
            format!("the header of {nca} does not decrypt with these console keys")
        }
        VerifyGap::MissingKey => {
            format!("{nca} needs key revision {detail}, which the console keys lack")
        }
        VerifyGap::PersonalizedTicket => {
            format!("the title key of {nca} is in a personalized ticket")
        }
        VerifyGap::NoTicket => format!("no ticket holds the title key of {nca}"),
        VerifyGap::Malformed => format!("{nca} is malformed ({detail})"),
        VerifyGap::ReadError => "the file could not be read".into(),
    };
    format!("not verifiable: {why}")
}

fn keys_line_english(why: &KeysLine) -> String {
    match why {
        KeysLine::NotText => "it is not text (a keys file is lines of name = hex digits)".into(),
        KeysLine::NoEquals => "it has no '=' between a name and a value".into(),
        KeysLine::BadName => "the name holds something other than letters, digits and '_'".into(),
        KeysLine::NoValue => "no value follows the '='".into(),
        KeysLine::NotHex => "the value is not hexadecimal".into(),
        KeysLine::OddDigits => "the value has an odd number of hex digits".into(),
        KeysLine::WrongLength {
            name,
            digits,
            expected,
        } => format!("{name} takes {expected} hex digits, not {digits}"),
        KeysLine::Twice { name } => format!("{name} is given twice, with different values"),
    }
}

/// ", and 2 fields skipped over 64 KiB", or nothing.
fn oversized_en(fields: u64, max_kib: u64) -> String {
    match fields {
        0 => String::new(),
        n => format!(
            ", and {} over {max_kib} KiB",
            EN.count(n, "field skipped", "fields skipped")
        ),
    }
}

fn files_en(n: u64) -> String {
    EN.count(n, "file", "files")
}

fn icons_english(icons: &Option<(u64, u64)>) -> String {
    match icons {
        Some((fetched, failed)) => format!(" Icons: {fetched} fetched, {failed} failed."),
        None => String::new(),
    }
}

fn nca_damaged_french(nca: &str, what: NcaFault, why: &Detail, more: u32) -> String {
    let what = match what {
        NcaFault::Mismatch => format!("le NCA {nca} ne correspond pas à son enregistrement de contenu (SHA-256) : il est corrompu ou modifié"),
        NcaFault::Missing => format!("le NCA {nca}, que son CNMT liste, manque au fichier"),
        NcaFault::Truncated => format!("le NCA {nca} est tronqué"),
        NcaFault::Unreadable => format!("le NCA {nca} ne se décompresse pas ({})", why.french()),
    };
    match more {
        0 => what,
        n => format!(
            "{what} (et {} de plus)",
            plural(n.into(), "NCA endommagé", "NCA endommagés")
        ),
    }
}

fn not_verifiable_french(what: VerifyGap, nca: &str, why: &Detail) -> String {
    let why = match what {
        VerifyGap::NoCnmt => "le fichier n'a aucun CNMT auquel comparer ses NCA".into(),
        VerifyGap::NoHeaderKey => "les clés de console n'ont pas de header_key".into(),
        VerifyGap::WrongKeys => {
            format!("l'en-tête de {nca} ne se déchiffre pas avec ces clés de console")
        }
        VerifyGap::MissingKey => {
            format!("{nca} demande la révision de clé {why}, qui manque aux clés de console")
        }
        VerifyGap::PersonalizedTicket => {
            format!("la clé de titre de {nca} est dans un ticket personnalisé")
        }
        VerifyGap::NoTicket => format!("aucun ticket ne porte la clé de titre de {nca}"),
        VerifyGap::Malformed => format!("{nca} est malformé ({})", why.french()),
        VerifyGap::ReadError => "le fichier n'a pas pu être lu".into(),
    };
    format!("invérifiable : {why}")
}

fn keys_line_french(why: &super::KeysLine) -> String {
    use super::KeysLine::*;
    match why {
        NotText => "ce n'est pas du texte (un fichier de clés est fait de lignes nom = chiffres hexadécimaux)".into(),
        NoEquals => "il n'y a pas de « = » entre un nom et une valeur".into(),
        BadName => "le nom contient autre chose que des lettres, des chiffres et « _ »".into(),
        NoValue => "aucune valeur ne suit le « = »".into(),
        NotHex => "la valeur n'est pas hexadécimale".into(),
        OddDigits => "la valeur a un nombre impair de chiffres hexadécimaux".into(),
        WrongLength { name, digits, expected } => format!("{name} prend {expected} chiffres hexadécimaux, pas {digits}"),
        Twice { name } => format!("{name} est donnée deux fois, avec des valeurs différentes"),
    }
}

fn icons_french(icons: &Option<(u64, u64)>) -> String {
    match icons {
        Some((fetched, failed)) => format!(
            " Icônes : {} {}, {} en échec.",
            n(*fetched),
            agree(*fetched, "téléchargée", "téléchargées"),
            n(*failed)
        ),
        None => String::new(),
    }
}

/// ", et 2 champs passés de plus de 64 Kio", or nothing.
fn oversized_fr(fields: u64, max_kib: u64) -> String {
    match fields {
        0 => String::new(),
        n => format!(
            ", et {} de plus de {max_kib} Kio",
            plural(n, "champ passé", "champs passés")
        ),
    }
}

const FR: Grammar = Grammar::French;

/// `n` and its noun agreeing with it: "0 fichier", "12 705 fichiers".
fn plural(n: u64, one: &str, many: &str) -> String {
    FR.count(n, one, many)
}

/// The word (a verb, an adjective) agreeing with a count of `n`.
fn agree<'a>(n: u64, one: &'a str, many: &'a str) -> &'a str {
    FR.agree(n, one, many)
}

/// `n` with its thousands grouped: "12 705".
fn n(value: u64) -> String {
    FR.number(value)
}

/// A size in French units: "1,5 Go".
fn octets(value: u64) -> String {
    FR.size(value)
}

/// An amount of a task's unit: "1 fichier", "12 705 octets".
fn amount(n: u64, unit: Unit) -> String {
    match unit {
        Unit::Bytes => plural(n, "octet", "octets"),
        Unit::Files => plural(n, "fichier", "fichiers"),
    }
}

fn files_fr(value: u64) -> String {
    plural(value, "fichier", "fichiers")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_is_a_slug_and_its_parameters() {
        let m = Msg::MissingParameter { name: "q".into() };
        assert_eq!(m.slug(), "missing_parameter");
        assert_eq!(
            serde_json::to_value(&m).unwrap(),
            serde_json::json!({"slug": "missing_parameter", "name": "q"})
        );
        assert_eq!(m.english(), "The query parameter 'q' is required.");
    }
}
