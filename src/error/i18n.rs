//! The languages and the catalogue's one table of words, in French (the product's
//! default) and English, for the web pages and the command line alike. Each account
//! picks its language; the command line follows the locale (`cli::out::lang`). A word
//! is an enum variant (`M`), so a missing translation does not compile. A sentence with
//! values (a count, a name, a size) is a `Msg` variant instead (`error::msg` in
//! English, `error::french`), so its grammar is written out whole in each language;
//! `Lang` is the one place a page or a command asks which language it speaks.

use crate::error::counts::Grammar;
use crate::error::{Line, Msg};

pub use crate::words::Lang;
use crate::words::{NoticeEvent, Role, Task, TaskResult, TrashReason};

/// What the interface needs of a language beside its code (`words::Lang`).
impl M {
    /// Why a file is in the trash, for people.
    pub fn of_reason(reason: TrashReason) -> M {
        match reason {
            TrashReason::Deleted => M::ReasonDeleted,
            TrashReason::Converted => M::ReasonConverted,
            TrashReason::Compressed => M::ReasonCompressed,
            TrashReason::Recovered => M::ReasonRecovered,
            TrashReason::Superseded => M::ReasonSuperseded,
            TrashReason::Duplicate => M::ReasonDuplicate,
            TrashReason::Save => M::ReasonSave,
        }
    }

    /// A task's name, for people.
    pub fn of_task(task: Task) -> M {
        match task {
            Task::Scan => M::TaskScan,
            Task::Convert => M::TaskConvert,
            Task::Push => M::TaskPush,
            Task::Titles => M::TaskTitles,
            Task::Organize => M::TaskOrganize,
            Task::OrganizeUndo => M::TaskOrganizeUndo,
            Task::Dedupe => M::TaskDedupe,
            Task::Verify => M::TaskVerify,
            Task::Compress => M::TaskCompress,
            Task::FolderAdd => M::TaskFolderAdd,
            Task::FolderRemove => M::TaskFolderRemove,
        }
    }

    /// An account's role, for people.
    pub fn of_role(role: Role) -> M {
        match role {
            Role::Admin => M::RoleAdmin,
            Role::Viewer => M::RoleViewer,
        }
    }

    /// A notification's title, by its event.
    pub fn of_notice(event: NoticeEvent) -> M {
        match event {
            NoticeEvent::NewGames => M::NoticeNewGames,
            NoticeEvent::Updates => M::NoticeUpdates,
            NoticeEvent::TaskFailed => M::NoticeTaskFailed,
            NoticeEvent::Damaged => M::NoticeDamaged,
            NoticeEvent::LibraryOffline => M::NoticeLibraryOffline,
            NoticeEvent::LowSpace => M::NoticeLowSpace,
            NoticeEvent::SaveBackedUp => M::NoticeSaveBackedUp,
        }
    }

    /// How a task run ended, for people.
    pub fn of_result(result: TaskResult) -> M {
        match result {
            TaskResult::Ok => M::ResultOk,
            TaskResult::Partial => M::ResultPartial,
            TaskResult::Failed => M::ResultFailed,
            TaskResult::Cancelled => M::ResultCancelled,
            TaskResult::Interrupted => M::ResultInterrupted,
            TaskResult::Running => M::ResultRunning,
        }
    }
}

impl Lang {
    /// How this language writes numbers, sizes and counts (`error::counts`).
    pub fn grammar(self) -> Grammar {
        match self {
            Lang::Fr => Grammar::French,
            Lang::En => Grammar::English,
        }
    }

    /// A line of the command line's in this language.
    pub fn line(self, l: &Line) -> String {
        match self {
            Lang::Fr => l.french(),
            Lang::En => l.english(),
        }
    }

    /// A message (an error's, a task's, a page's sentence) in this language.
    pub fn msg(self, m: &Msg) -> String {
        match self {
            Lang::Fr => m.french(),
            Lang::En => m.english(),
        }
    }

    /// A day as this language writes it, the way the browser's `Intl.DateTimeFormat`
    /// writes a medium date (the page's script rewrites moments in the reader's own
    /// zone with it): "28 nov. 2026", "Nov 28, 2026". `month` is 1 to 12.
    pub fn day(self, year: i64, month: usize, day: u32) -> String {
        const FR: [&str; 12] = [
            "janv.", "févr.", "mars", "avr.", "mai", "juin", "juil.", "août", "sept.", "oct.",
            "nov.", "déc.",
        ];
        const EN: [&str; 12] = [
            "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
        ];
        let at = month.clamp(1, 12) - 1;
        match self {
            Lang::Fr => format!("{day} {} {year}", FR[at]),
            Lang::En => format!("{} {day}, {year}", EN[at]),
        }
    }

    /// A label and its value's separator: "Dernier résultat : " or "Last result: ".
    pub fn colon(self) -> &'static str {
        match self {
            Lang::Fr => "\u{a0}: ",
            Lang::En => ": ",
        }
    }

    /// The languages, best first, a title's control data (`store::title_control`'s
    /// indexes) is read in: French, else Canadian French; American, else British English.
    pub fn control_langs(self) -> &'static [u8] {
        match self {
            Lang::Fr => &[3, 9],
            Lang::En => &[0, 1],
        }
    }

    /// Why a file is bad (a scan's note), in this language.
    pub fn detail(self, detail: &crate::error::Detail) -> String {
        match self {
            Lang::Fr => detail.french(),
            Lang::En => detail.english(),
        }
    }

    /// The other language, named in itself (as Immich and Jellyfin name theirs).
    pub fn other(self) -> (Lang, &'static str) {
        match self {
            Lang::Fr => (Lang::En, "English"),
            Lang::En => (Lang::Fr, "Français"),
        }
    }
}

macro_rules! messages {
    ($($id:ident => $fr:literal, $en:literal;)*) => {
        /// A message of the interface.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum M { $($id),* }

        impl M {
            pub fn get(self, lang: Lang) -> &'static str {
                match (self, lang) {
                    $((M::$id, Lang::Fr) => $fr, (M::$id, Lang::En) => $en,)*
                }
            }
        }

        #[cfg(test)]
        pub const ALL: &[M] = &[$(M::$id),*];
    };
}

messages! {
    // Navigation and page titles.
    Dashboard => "Tableau de bord", "Dashboard";
    Library => "Bibliothèque", "Library";
    Tasks => "Tâches", "Tasks";
    Device => "Consoles", "Consoles";
    Trash => "Corbeille", "Trash";
    Platforms => "Plateformes", "Platforms";
    Settings => "Réglages", "Settings";
    ApiKeys => "Clés d'API", "API keys";
    SignIn => "Connexion", "Sign in";
    SignOut => "Se déconnecter", "Sign out";
    FirstRun => "Premier lancement", "First run";
    SkipToContent => "Aller au contenu", "Skip to content";
    MainMenu => "Menu principal", "Main menu";
    // Accounts.
    Name => "Nom", "Name";
    Password => "Mot de passe", "Password";
    PasswordAgain => "Confirmer le mot de passe", "Confirm password";
    CurrentPassword => "Mot de passe actuel", "Current password";
    NewPassword => "Nouveau mot de passe", "New password";
    ChangePassword => "Changer le mot de passe", "Change password";
    PasswordsDiffer => "Les deux mots de passe diffèrent.", "The passwords do not match.";
    CreateAdmin => "Créer le compte administrateur", "Create the admin account";
    FirstRunIntro => "Aucun compte n'existe encore. Créez le premier administrateur ; cette page n'est servie que tant qu'aucun compte n'existe.",
        "No account exists yet. Create the first administrator; this page is served only while no account exists.";
    SetupCodeIntro => "Depuis une autre machine (ou quand l'accès local est coupé), il faut le code de premier lancement que le service a écrit dans son journal à son démarrage, sur la ligne « …with the setup code CODE… » : le terminal qui le lance, « journalctl -u ludotheque » ou « docker logs CONTENEUR ». Sinon, créez le compte sur la machine du service avec « ludotheque user add NOM --admin ».",
        "From another machine (or when local access is off), you need the setup code the service wrote to its log when it started, on the line “…with the setup code CODE…”: the terminal that runs it, “journalctl -u ludotheque” or “docker logs CONTAINER”. Otherwise, create the account on the service's machine with “ludotheque user add NAME --admin”.";
    SetupCode => "Code de premier lancement", "Setup code";
    NoAccountYet => "Aucun compte n'existe encore : créez-en un avec « ludotheque user add NOM --admin », ou sur la page :",
        "No account exists yet: create one with “ludotheque user add NAME --admin”, or on the page:";
    LocalAccess => "accès local", "local access";
    RoleAdmin => "administrateur", "admin";
    RoleViewer => "lecteur", "viewer";
    Accounts => "Comptes", "Accounts";
    Language => "Langue", "Language";
    Save => "Enregistrer", "Save";
    ViewerNote => "Compte lecteur : vous pouvez tout consulter, mais ne rien modifier.",
        "Viewer account: you can look at everything but change nothing.";
    // Dashboard and tasks.
    Games => "Jeux", "Games";
    Base => "Jeux de base", "Base games";
    Updates => "Mises à jour", "Updates";
    Dlc => "DLC", "DLC";
    Unknown => "Inconnus", "Unknown";
    TypeBase => "Jeu de base", "Base game";
    TypeUpdate => "Mise à jour", "Update";
    TypeUnknown => "Inconnu", "Unknown";
    TotalSize => "Taille totale", "Total size";
    ToConvert => "Compressés (.nsz/.xcz)", "Compressed (.nsz/.xcz)";
    Titles => "Titres", "Titles";
    TitlesToUpdate => "Titres à mettre à jour", "Titles to update";
    TitlesMissingDlc => "Titres auxquels il manque des DLC", "Titles missing DLC";
    Files => "Fichiers", "Files";
    DamagedFiles => "Fichiers endommagés", "Damaged files";
    RecentlyAdded => "Ajoutés récemment", "Recently added";
    SeeAll => "tout voir", "see all";
    RunningTask => "Tâche en cours", "Running task";
    NoTask => "Aucune tâche en cours.", "No task is running.";
    LastResult => "Dernier résultat", "Last result";
    StartScan => "Analyser la bibliothèque", "Scan the library";
    StartConvert => "Décompresser .nsz/.xcz", "Decompress .nsz/.xcz";
    StartPush => "Envoyer à la console", "Push to the console";
    StartVerify => "Vérifier les fichiers (clés de console)", "Verify the files (console keys)";
    VerifyFile => "Vérifier ce fichier", "Verify this file";
    StartCompress => "Compresser .nsp/.xci (clés de console)", "Compress .nsp/.xci (console keys)";
    CompressFile => "Compresser ce fichier", "Compress this file";
    CompressTitle => "Compresser les .nsp/.xci du titre", "Compress the title's .nsp/.xci";
    CompressSelected => "Compresser (.nsp/.xci → .nsz/.xcz)", "Compress (.nsp/.xci → .nsz/.xcz)";
    ConvertSelected => "Décompresser (.nsz/.xcz → .nsp/.xci)", "Decompress (.nsz/.xcz → .nsp/.xci)";
    // Templates the page's script fills as boxes are ticked (`{n}`, `{files}`…).
    FileCountOne => "{n} fichier", "{n} file";
    FileCountMany => "{n} fichiers", "{n} files";
    SelectionSummary => "Sélection : {files}, {size}.", "Selected: {files}, {size}.";
    SelectionHint => "Cochez des fichiers pour agir sur eux.", "Tick files to act on them.";
    ConfirmTrashSelection => "Mettre {files} ({size}) à la corbeille ? Ils y restent restaurables jusqu'à leur purge.", "Move {files} ({size}) to the trash? They can be restored from there until purged.";
    ConfirmPushSelection => "Ajouter {files} ({size}) à la liste d'envoi ?", "Add {files} ({size}) to the push list?";
    ConfirmConvertSelection => "Décompresser {files} ({size}) en .nsp/.xci ? Les originaux vont à la corbeille.", "Decompress {files} ({size}) to .nsp/.xci? The originals go to the trash.";
    ConfirmCompressSelection => "Compresser {files} ({size}) en .nsz/.xcz ?", "Compress {files} ({size}) to .nsz/.xcz?";
    CompressSelectHint => "Cochez des .nsp/.xci pour les compresser.", "Tick .nsp/.xci files to compress them.";
    SelectFile => "Choisir", "Select";
    SelectAllShown => "Choisir tous les fichiers de cette page", "Select all files on this page";
    DidYouMean => "Vouliez-vous dire {q} ?", "Did you mean {q}?";
    ViewAs => "Affichage", "View";
    ViewTable => "Tableau", "Table";
    ViewGrid => "Jaquettes", "Covers";
    DamagedOnly => "Endommagés seulement", "Damaged only";
    CompressSettings => "Compression", "Compression";
    DeleteOriginals => "Supprimer les originaux une fois vérifiés", "Delete the originals once verified";
    DeleteOriginalsNote => "Sinon chaque .nsp/.xci compressé attend dans la corbeille, où il ne libère rien avant d'être purgé. Vaut pour chaque compression, du web, de l'API ou de la ligne de commande (où ce drapeau l'active pour une fois) :", "Otherwise each compressed .nsp/.xci waits in the trash, where it frees nothing until purged. Applies to every compress run, from the web, the API or the command line (where this flag turns it on for one run):";
    // The script's template of `Msg::CompressEstimate` (a test checks they agree).
    CompressEstimate => "Gain estimé : {low} à {high} sur {size} (35 à 50 % ; une estimation, le gain réel dépend des jeux).", "Estimated saving: {low} to {high} of {size} (35–50%; an estimate, the real saving depends on the games).";
    CompressNoKeys => "La compression nécessite les clés de console (prod.keys), à importer dans les Réglages.", "Compressing needs the console keys (prod.keys): import them in Settings.";
    VerifyNoKeys => "La vérification nécessite les clés de console (prod.keys), à importer dans les Réglages.", "Verifying needs the console keys (prod.keys): import them in Settings.";
    ImportKeys => "Importer les clés", "Import the keys";
    Health => "Santé de la bibliothèque", "Library health";
    // The menu's: the whole French name would take the desktop menu to a second row.
    HealthMenu => "Santé", "Library health";
    HealthIntro => "Ce qui demande votre attention, chaque point avec sa liste et sa solution. Rien ne bouge sans que vous l'ayez vu : chaque action montre d'abord ce qu'elle fera, et la corbeille rend ce qu'elle a reçu.", "What needs attention, each with its list and its fix. Nothing changes until you have reviewed it: each action first shows what it will do, and anything moved to the trash can be restored.";
    HealthAllGood => "Tout est en ordre : rien à faire.", "All is in order: nothing to do.";
    HealthUpdateOne => "mise à jour manquante", "missing update";
    HealthUpdates => "mises à jour manquantes", "missing updates";
    HealthDlcOne => "DLC manquant", "missing DLC";
    HealthDlc => "DLC manquants", "missing DLC";
    HealthBaseOne => "titre sans son jeu de base", "title without its base game";
    HealthBase => "titres sans leur jeu de base", "titles without their base game";
    HealthFixBase => "Des mises à jour ou des DLC sans leur jeu : ajoutez le jeu à la bibliothèque.", "Updates or DLC without their game: add the game to the library.";
    HealthBaseDamagedOne => "titre dont le jeu de base est endommagé", "title whose base game is damaged";
    HealthBaseDamaged => "titres dont le jeu de base est endommagé", "titles whose base game is damaged";
    HealthFixBaseDamaged => "Depuis la page du titre : vérifier à nouveau, ou mettre la copie à la corbeille et en remettre une saine.", "From the title's page: verify it again, or move the copy to the trash and put a sound one back.";
    HealthFixDamaged => "Depuis la page de chaque fichier : vérifier à nouveau, ou le mettre à la corbeille.", "From each file's page: verify it again, or move it to the trash.";
    HealthDuplicateOne => "copie en double ou remplacée", "duplicate or superseded copy";
    HealthDuplicates => "copies en double ou remplacées", "duplicate or superseded copies";
    HealthFixDuplicates => "Elles peuvent aller à la corbeille : la liste est montrée avant, et chacune se restaure.", "They can go to the trash: the list is shown first, and each can be restored.";
    HealthUnknown => "fichiers non identifiés", "unidentified files";
    HealthFixUnknown => "Les clés de console les reconnaissent à leur contenu ; sinon, un identifiant de titre entre crochets dans le nom.", "The console keys recognize them by their contents; otherwise, a title ID in square brackets in the name.";
    HealthUnknownTitleOne => "titre inconnu des données de titres", "title unknown to the title data";
    HealthUnknownTitles => "titres inconnus des données de titres", "titles unknown to the title data";
    HealthFixUnknownTitles => "Sans elles, ce qui leur manque ne peut pas être connu : mettez à jour les données de titres.", "Without it, what they lack cannot be known: update the title data.";
    EmptyLibrary => "La bibliothèque est vide", "The library is empty";
    EmptyWatched => "Le service surveille ce dossier : les jeux apparaissent d'eux-mêmes en quelques secondes (ou lancez une analyse ci-dessous).", "The service watches that folder: games appear by themselves within seconds (or start a scan below).";
    EmptyNotWatched => "Puis lancez une analyse ci-dessous : la surveillance du dossier est coupée (--watch off).", "Then start a scan below: watching the folder is off (--watch off).";
    EmptyKeys => "Avec les clés de votre console, les fichiers sont reconnus à leur contenu, quel que soit leur nom.", "With your console's keys, files are recognized by their contents, whatever their names.";
    EmptyDemo => "Pour essayer sans vos jeux : « ludotheque demo-library DOSSIER » écrit une petite bibliothèque de démonstration.", "To try it without your games: “ludotheque demo-library DIR” writes a small demo library.";
    Cancel => "Annuler la tâche", "Cancel the task";
    History => "Historique", "History";
    Task => "Tâche", "Task";
    Result => "Résultat", "Result";
    Started => "Début", "Started";
    Finished => "Fin", "Finished";
    Progress => "Avancement", "Progress";
    Errors => "Erreurs", "Errors";
    Message => "Message", "Message";
    Never => "jamais", "never";
    // Library and games.
    Search => "Rechercher", "Search";
    SearchHint => "Nom ou identifiant de titre", "Name or title ID";
    Type => "Type", "Type";
    Platform => "Plateforme", "Platform";
    All => "Tous", "All";
    Filter => "Filtrer", "Filter";
    Size => "Taille", "Size";
    TitleId => "Identifiant de titre", "Title ID";
    NoGames => "Aucun jeu ne correspond.", "No game matches.";
    Previous => "Précédente", "Previous";
    Next => "Suivante", "Next";
    PageOf => "Page", "Page";
    Of => "sur", "of";
    Results => "résultats", "results";
    Version => "Version", "Version";
    Key => "Chemin dans la bibliothèque", "Path in the library";
    Format => "Format", "Format";
    Modified => "Modifié", "Modified";
    Evidence => "Identification", "Identification";
    IdentifiedBy => "Identifié par", "Identified by";
    Note => "Remarque", "Note";
    FileContents => "Ce que contient le fichier", "What the file holds";
    FromTheFile => "Selon le fichier lui-même", "As the file itself says";
    FromTheFiles => "Selon ses fichiers eux-mêmes", "As its files themselves say";
    DisplayVersion => "Version affichée", "Display version";
    ByFilename => "l'identifiant entre crochets dans le nom du fichier", "the bracketed ID in the file name";
    ByCnmt => "le CNMT XML dans le conteneur", "the CNMT XML inside the container";
    ByTicket => "le ticket dans le conteneur", "the ticket inside the container";
    ByKeys => "son contenu, lu avec vos clés de console", "its contents, read with your console keys";
    ByNothing => "rien : aucun identifiant trouvé", "nothing: no ID was found";
    Subtype => "Sous-type", "Subtype";
    SubtypeDlcUpdate => "mise à jour d'un DLC", "a DLC's update";
    BaseTitle => "Jeu de base", "Base game";
    Playable => "Jouable", "Playable";
    Yes => "oui", "yes";
    No => "non", "no";
    DeleteToTrash => "Mettre à la corbeille", "Move to the trash";
    AddToPush => "Ajouter à la liste d'envoi", "Add to the push list";
    AddTitleToPush => "Ajouter à la liste d'envoi (jeu + mise à jour + DLC)", "Add to the push list (game + update + DLC)";
    AllFiles => "Tous les fichiers", "All files";
    UnknownFiles => "fichiers non identifiés", "unidentified files";
    // Titles.
    TitleWord => "Titre", "Title";
    TitlesCount => "titres", "titles";
    NoTitles => "Aucun titre ne correspond.", "No title matches.";
    NoTitleData => "Aucune donnée de titres n'a été importée : sans ces données, la bibliothèque ne sait pas quelles mises à jour et quels DLC existent. Importez-les avec « ludotheque titles import » ou récupérez-les depuis les Réglages.",
        "No title data is imported: without it the library cannot know which updates and DLC exist. Import it with “ludotheque titles import” or fetch it from Settings.";
    Show => "Afficher", "Show";
    IncompleteOnly => "Incomplets seulement", "Incomplete only";
    SortBy => "Trier par", "Sort by";
    SortName => "Nom", "Name";
    SortAdded => "Date d'ajout", "Date added";
    SortSize => "Taille", "Size";
    Status => "État", "Status";
    Contents => "Contenu", "Contents";
    StatusUpdateAvailable => "mise à jour disponible", "update available";
    StatusDlcMissing => "DLC manquants", "DLC missing";
    StatusOneDlcMissing => "DLC manquant", "DLC missing";
    StatusBaseMissing => "jeu de base manquant", "base game missing";
    StatusComplete => "complet", "complete";
    StatusBaseDamaged => "jeu de base endommagé", "base game damaged";
    StatusUnknown => "titre inconnu", "unknown title";
    BaseGameMissing => "Le jeu de base : aucun fichier dans la bibliothèque.", "The base game: no file of it in the library.";
    BaseGameDamaged => "Le jeu de base : chacune de ses copies est endommagée.", "The base game: every copy of it is damaged.";
    UnknownToData => "Les données de titres ne connaissent pas ce titre : on ne peut pas savoir quelles mises à jour et quels DLC lui manquent.", "The title data does not know this title: which updates and DLC it lacks cannot be known.";
    VerifyAgain => "Vérifier à nouveau", "Verify again";
    InstalledVersion => "Version dans la bibliothèque", "Version in the library";
    LatestVersion => "Dernière version connue", "Latest known version";
    NewerThanData => "plus récente que les données de titres", "newer than the title data";
    TitleDataOlder => "La bibliothèque a une version plus récente : les données de titres sont plus anciennes que ce fichier (mettez-les à jour dans les Réglages).", "Your library has a newer version than the title data lists: update the title data in Settings.";
    Publisher => "Éditeur", "Publisher";
    Released => "Sortie", "Released";
    WhatIsMissing => "Ce qui manque", "What is missing";
    NothingMissing => "Rien ne manque.", "Nothing is missing.";
    MissingUpdate => "Mise à jour", "Update";
    VersionHistory => "Historique des versions", "Version history";
    Superseded => "remplacé", "superseded";
    SupersededHint => "un fichier plus récent du même identifiant existe", "a newer file of the same ID exists";
    IgnoreDlc => "Ne pas compter ses DLC manquants", "Do not count its missing DLC";
    IgnoreUpdates => "Ne pas compter ses mises à jour", "Do not count its updates";
    NoSuchTitle => "La bibliothèque n'a pas ce titre.", "The library has no such title.";
    TitleData => "Données de titres", "Title data";
    LastImport => "Dernier import", "Last import";
    KnownTitles => "Titres connus", "Known title IDs";
    NoticeNewGames => "Nouveaux jeux", "New games";
    NoticeUpdates => "Mises à jour et DLC disponibles", "Updates and DLC available";
    NoticeTaskFailed => "Tâche en échec", "Task failed";
    NoticeDamaged => "Fichiers endommagés", "Damaged files";
    NoticeLibraryOffline => "Bibliothèque hors ligne", "Library offline";
    NoticeLowSpace => "Peu de place sur le disque", "Low disk space";
    NoticeSaveBackedUp => "Sauvegarde reçue", "Save backed up";
    NoticeTest => "Test des notifications", "Notification test";
    Notifications => "Notifications", "Notifications";
    NotificationsIntro => "Ludothèque prévient ces destinataires (ntfy, Gotify, Discord, Telegram, JSON) de ce qui arrive à la bibliothèque. Un destinataire donné au démarrage reçoit tout, jusqu'à ce que vous choisissiez ici.",
        "Ludothèque tells these targets (ntfy, Gotify, Discord, Telegram, JSON) what happens to the library. A target given at start gets everything until you choose here.";
    NoTargets => "Aucun destinataire.", "No targets.";
    TargetsAdminOnly => "Seul un administrateur voit et change les destinataires.", "Only an admin sees and changes the targets.";
    TargetEvents => "Évènements", "Events";
    GivenAtStart => "donné au démarrage", "given at start";
    AddedHere => "ajouté ici", "added here";
    AddTarget => "Ajouter un destinataire", "Add a target";
    TargetUrl => "Adresse (ntfys://ntfy.sh/sujet, gotify://hôte/JETON, discord://ID/JETON, tgram://JETON/DISCUSSION, json://hôte/chemin)",
        "Address (ntfys://ntfy.sh/topic, gotify://host/TOKEN, discord://ID/TOKEN, tgram://TOKEN/CHAT, json://host/path)";
    SendTest => "Envoyer un message de test", "Send a test message";
    EventNewGames => "nouveaux jeux", "new games";
    EventUpdates => "mises à jour et DLC disponibles", "updates and DLC available";
    EventTaskFailed => "tâche en échec ou incomplète", "task failed or partial";
    EventDamaged => "fichier endommagé", "damaged file";
    EventLibraryOffline => "bibliothèque hors ligne", "library offline";
    EventLowSpace => "peu de place sur le disque", "low disk space";
    EventSaveBackedUp => "une sauvegarde reçue d'une console", "a console's save backed up";
    TitleSources => "Sources, dans l'ordre où elles sont essayées", "Sources, in the order they are tried";
    TitleSource => "Source", "Source";
    LastSuccess => "Dernier succès", "Last success";
    LastFailure => "Dernier échec", "Last failure";
    FilesInUse => "Fichiers utilisés", "Files in use";
    TitleFile => "Fichier", "File";
    FetchedFrom => "Provenance", "From";
    FetchedAt => "Téléchargé le", "Fetched";
    CopyAge => "Âge de la copie", "Age of the copy";
    WantedKindDownload => "Cette liste, à télécharger :", "This list, to download:";
    WantedListDownload => "Toute la liste de ce qui manque, à télécharger :", "The whole wanted list, to download:";
    DaysShort => "j", "d";
    RefreshEvery => "Mise à jour automatique", "Automatic update";
    EveryDuration => "toutes les", "every";
    CountMissingDlc => "Compter les DLC manquants", "Count missing DLC";
    ShowIcons => "Télécharger les icônes des jeux", "Fetch game icons";
    IconsNote => "Les icônes déjà là (lues dans vos fichiers avec les clés de console, ou celles de la démo) s'affichent toujours. Celles-ci viennent d'un hôte tiers (celui des données de titres) : la tâche des données de titres les télécharge une fois, puis les pages les servent depuis le dossier de données.",
        "Icons already there (read from your files with the console keys, or the demo's) are always shown. These come from a third-party host (the title data's): the title data task downloads them once, then pages serve them from the data folder.";
    UpdateTitleData => "Mettre à jour les données de titres", "Update the title data";
    NotFound => "Introuvable", "Not found";
    NoSuchGame => "Aucun jeu ne se trouve à ce chemin.", "No game is at that path.";
    // The shop.
    Shop => "Boutique", "Shop";
    ShopIntro => "Les installateurs de la console (Tinfoil, CyberFoil, DBI, Sphaira) parcourent toute la bibliothèque et installent depuis cette adresse :",
        "Console installers (Tinfoil, CyberFoil, DBI, Sphaira) browse the whole library and install from this address:";
    ShopLoopback => "Le service n'écoute que sur cette machine : aucune console ne peut l'atteindre.",
        "The service listens on this machine only: no console can reach it.";
    ListenBelow => "Pour les consoles du réseau, écoutez sur 0.0.0.0 ci-dessous.", "For the consoles on your network, listen on 0.0.0.0 below.";
    RestartListening => "Relancez-le avec", "Start it again with";
    TitleFiles => "Fichiers de données de titres", "Title data files";
    TitleFilesNote => "versions.txt, versions.json et un fichier de région (US.en.json, FR.fr.json…), un ou plusieurs à la fois, dans n'importe quel ordre : pour un service sans accès à Internet, ou votre propre copie de titledb.",
        "versions.txt, versions.json and a region file (US.en.json, FR.fr.json…), one or several at once, in any order: for a service without Internet access, or your own copy of titledb.";
    ImportTitleFiles => "Importer ces fichiers", "Import these files";
    CoversHeading => "Icônes des jeux", "Game icons";
    CoversChoice => "Les icônes lues dans vos fichiers avec les clés de console s'affichent sans rien de plus. Pour les autres jeux, Ludothèque peut télécharger leurs icônes une fois depuis l'hôte des données de titres, un serveur tiers sur Internet, qui voit alors quels jeux vous avez. Sans elles, une vignette sobre les remplace. Ce choix se change dans les Réglages.",
        "Icons read from your files with the console keys show with nothing more. For the other games, Ludothèque can fetch their icons once from the title data's host, a third-party server on the Internet, which then sees which games you have. Without them, a plain tile stands in. This choice can be changed in Settings.";
    CoversFetched => "Choix actuel : les icônes sont téléchargées avec les données de titres.", "Current choice: icons are fetched with the title data.";
    CoversNotFetched => "Choix actuel : les icônes ne sont pas téléchargées.", "Current choice: icons are not fetched.";
    FetchCovers => "Télécharger les icônes", "Fetch the icons";
    NoFetchCovers => "Ne pas les télécharger", "Do not fetch them";
    ListenHeading => "Adresse d'écoute", "Listening address";
    ListenAddress => "Adresse et port (IP:PORT)", "Address and port (IP:PORT)";
    ListenNote => "0.0.0.0 : toutes les interfaces, pour les consoles du réseau ; 127.0.0.1 : cette machine seulement. Le changement prend effet tout de suite et est gardé pour les prochains lancements.",
        "0.0.0.0: every interface, for the consoles on your network; 127.0.0.1: this machine only. The change applies at once and is kept for the next starts.";
    ListenNetwork => "Toutes les interfaces", "Every interface";
    ListenLocal => "Cette machine seulement", "This machine only";
    Listen => "Écouter ici", "Listen here";
    ShopPublic => "--shop-public : la boutique est ouverte sans mot de passe à quiconque atteint le service, qui peut lister et télécharger tous les jeux.",
        "--shop-public: the shop is open without a password to anyone who reaches the service, who can list and download every game.";
    ShopPrivate => "Chaque console s'identifie par son nom et son mot de passe (HTTP Basic). Un mot de passe de console n'ouvre que la boutique et les sauvegardes de cette console ; une clé d'API ne les ouvre pas.",
        "Each console identifies itself by its name and password (HTTP Basic). A console password opens only the shop and that console's saves; an API key opens neither.";
    Consoles => "Accès des consoles", "Console logins";
    NoConsoles => "Aucun accès : ajoutez-en un par console pour qu'elle puisse ouvrir la boutique.", "No login yet: add one per console so it can open the shop.";
    AddConsole => "Ajouter l'accès", "Add the login";
    ConsolePasswordOnce => "Son mot de passe, affiché une seule fois (seule son empreinte est conservée) :", "Its password, shown once (only its hash is kept):";
    ConsoleFullUrl => "L'adresse avec le nom et le mot de passe, pour les installateurs qui la prennent ainsi (DBI, Sphaira) :", "The address with the name and password, for installers that take it that way (DBI, Sphaira):";
    Added => "Ajoutée", "Added";
    HowToInstall => "Installateur par installateur", "Installer by installer";
    HowCyberfoil => "Dans CyberFoil : Shop, réglages de la boutique, puis ces champs :", "In CyberFoil: Shop, the shop's settings, then these fields:";
    HowDbi => "DBI lit /switch/DBI/dbi.config : mettez-y ces lignes, chacune sous la section du même nom. Le fichier téléchargé ne contient que ces lignes et remplace votre dbi.config. VersionsURL fait signaler les mises à jour par DBI.",
        "DBI reads /switch/DBI/dbi.config: put these lines in it, each under the section of the same name. The downloaded file contains only these lines and replaces your dbi.config. VersionsURL makes DBI point out updates.";
    HowSphaira => "Sphaira lit /config/sphaira/mount/HTTP.ini : ce fichier, ligne [Ludotheque] comprise (sans elle, Sphaira ignore le montage).",
        "Sphaira reads /config/sphaira/mount/HTTP.ini: this file, its [Ludotheque] line included (without it, Sphaira skips the mount).";
    PushElsewhere => "Awoo, TinWoo et les installateurs qui attendent qu'on leur envoie des jeux :", "Awoo, TinWoo and the installers that wait for games to be sent:";
    PushPage => "Envoyer à une console", "Push to a console";
    OpenPushPage => "la page d'envoi", "the push page";
    ShopMessageHeading => "Message des installateurs", "The installers' message";
    ShopMessage => "Message affiché par Tinfoil et CyberFoil (vide : le nom du service et le nombre de fichiers)",
        "Message Tinfoil and CyberFoil show (empty: the service's name and the file count)";
    Download => "Télécharger", "Download";
    RecentDownloads => "Téléchargements récents", "Recent downloads";
    NoDownloads => "Aucune console n'a encore téléchargé depuis la boutique.", "No console has downloaded from the shop yet.";
    Sent => "Envoyé", "Sent";
    Duration => "Durée", "Duration";
    When => "Quand", "When";
    // Device and push.
    Host => "Adresse IP", "Host (IP)";
    Port => "Port", "Port";
    OfferAddress => "Adresse du service vue par la console (facultatif)", "Service address as the console sees it (optional)";
    LastContact => "Dernier contact", "Last contact";
    Client => "Client", "Client";
    LastPush => "Dernier envoi", "Last push";
    Forget => "Oublier la console", "Forget the console";
    PushList => "Liste d'envoi", "Push list";
    PushEmpty => "La liste d'envoi est vide.", "The push list is empty.";
    Remove => "Retirer", "Remove";
    ClearList => "Vider la liste", "Clear the list";
    // Trash.
    TrashEmpty => "La corbeille est vide.", "The trash is empty.";
    // The library's folders (Settings, `ludotheque library list`).
    LibraryFolders => "Dossiers de la bibliothèque", "Library folders";
    LibraryFoldersNote => "Chaque dossier après le premier apparaît dans la bibliothèque comme un dossier à son nom. Un dossier hors ligne (absent, ou vide : un disque ou un partage qui n'est pas monté) garde ses jeux, injouables jusqu'à son retour. Ceux que donne la ligne de commande au démarrage du service restent.", "Each folder after the first appears in the library as a folder of its name. An offline folder (missing, or empty: a disk or share that is not mounted) keeps its games, not playable until it is back. Those the command line gives when the service starts stay.";
    FreeSpace => "Libre", "Free";
    LibraryFolderLabel => "Dossier de la bibliothèque", "Library folder";
    Filesystem => "Système de fichiers", "Filesystem";
    FolderPath => "Dossier sur le serveur (chemin complet)", "Folder on the server (full path)";
    FolderNameOptional => "Nom (facultatif : celui du dossier)", "Name (optional: the folder's own)";
    AddFolder => "Ajouter le dossier", "Add the folder";
    RemoveFolder => "Retirer de la bibliothèque", "Take out of the library";
    FolderOnline => "en ligne", "online";
    FolderRefusedAtStart => "refusé au démarrage, non monté", "refused at start, not mounted";
    FolderOffline => "hors ligne", "offline";
    FolderUnreadable => "illisible", "not readable";
    FolderGivenAtStart => "donné par --library", "given by --library";
    FolderAddedHere => "ajouté", "added";
    FolderPolled => "surveillé par scrutation", "polled by the watch";
    FolderHeard => "surveillé par inotify", "watched by inotify";
    Reason => "Raison", "Reason";
    Deleted => "Supprimé", "Deleted";
    Expires => "Expire", "Expires";
    Restore => "Restaurer", "Restore";
    Purge => "Supprimer définitivement", "Delete for good";
    PurgeExpired => "Purger les entrées expirées", "Purge expired entries";
    ConfirmAgain => "Confirmer ?", "Confirm?";
    // Platforms.
    Slug => "Identifiant", "ID";
    Folder => "Dossier", "Folder";
    WholeLibrary => "toute la bibliothèque", "the whole library";
    Extensions => "Extensions", "Extensions";
    AddPlatform => "Ajouter une plateforme", "Add a platform";
    Add => "Ajouter", "Add";
    Delete => "Supprimer", "Delete";
    // Settings.
    LibrarySettings => "Bibliothèque", "Library";
    Ready => "Première analyse faite", "First scan done";
    Retention => "Conservation de la corbeille", "Trash retention";
    Days => "jours", "days";
    Limits => "Limites", "Limits";
    SetByFlag => "Se règle au lancement avec", "Set at start with";
    KeyRate => "Requêtes par seconde et par clé", "Requests per second per key";
    KeyBurst => "Rafale par clé", "Burst per key";
    AuthFailures => "Échecs d'authentification par minute et par adresse", "Authentication failures per minute per address";
    MaxBody => "Taille maximale d'une requête", "Largest request body";
    Workers => "Fils de traitement", "Worker threads";
    MaxConnections => "Connexions simultanées", "Simultaneous connections";
    // API keys.
    CreateKey => "Créer une clé", "Create a key";
    ReadOnly => "Lecture seule", "Read-only";
    FullAccess => "Lecture et écriture", "Full access";
    KeyShownOnce => "Copiez cette clé maintenant : elle ne sera plus jamais affichée.", "Copy this key now: it will never be shown again.";
    Copy => "Copier", "Copy";
    Copied => "Copié", "Copied";
    Prefix => "Préfixe", "Prefix";
    Created => "Créée", "Created";
    LastUsed => "Dernier usage", "Last used";
    Revoked => "Révoquée", "Revoked";
    Revoke => "Révoquer", "Revoke";
    Active => "Active", "Active";
    NoKeys => "Aucune clé.", "No keys.";
    // The user's console keys (prod.keys), in Settings: never "keys" alone, which
    // names the API keys.
    ConsoleKeys => "Clés de console (prod.keys)", "Console keys (prod.keys)";
    ConsoleKeysNone => "Aucun fichier de clés de console : les fichiers sont identifiés sans elles, par leur nom, leur ticket ou leur CNMT XML.",
        "No console keys file: files are identified without them, by their names, tickets or CNMT XML.";
    ConsoleKeysWouldAdd => "Avec vos clés, le service lit ce que chaque fichier contient au lieu de se fier à son nom : identification par le contenu, noms et icônes tirés des fichiers eux-mêmes (sans réseau), et vérification de l'intégrité.",
        "With your keys, the service reads what each file holds instead of trusting its name: identification from the contents, names and icons from the files themselves (offline) and integrity checks (verify).";
    ConsoleKeysWhere => "Extrayez prod.keys de votre propre console avec Lockpick_RCM, puis importez-le ici ou avec « ludotheque keys import FICHIER ». Le service ne fournit, ne télécharge, n'affiche ni n'envoie jamais une clé.",
        "Dump prod.keys from your own console with Lockpick_RCM, then import it here or with “ludotheque keys import FILE”. The service never ships, fetches, shows or sends a key.";
    ConsoleKeysUnused => "Le fichier de clés de console n'est pas utilisé :", "The console keys file is not used:";
    ConsoleKeysKept => "Les clés lues auparavant restent en usage.", "The keys read before stay in use.";
    ConsoleKeysFile => "Fichier prod.keys", "prod.keys file";
    ConsoleKeysUploadNote => "Le fichier est vérifié avant de remplacer l'actuel (une ligne mal formée est refusée avec son numéro) ; il n'est jamais réaffiché.",
        "The file is checked before it replaces the current one (a malformed line is refused with its number); it is never shown back.";
    ConsoleKeysImport => "Importer les clés", "Import the keys";
    NoRevisionKeys => "Aucune clé par révision (ni master_key_XX, ni key_area_key_application_XX, ni titlekek_XX).",
        "No key per revision (no master_key_XX, key_area_key_application_XX or titlekek_XX).";
    KeyRevision => "Révision", "Revision";
    KeyPresent => "présente", "present";
    KeyDerived => "dérivée", "derived";
    KeyMissing => "manquante", "missing";
    KeyAbsent => "absente", "absent";
    Access => "Accès", "Access";
    // The upkeep page.
    Upkeep => "Rangement", "Upkeep";
    UpkeepLink => "Doublons et rangement des fichiers", "Duplicates and file names";
    OrganizeTitle => "Noms des fichiers", "File names";
    OrganizeTemplateLabel => "Noms des fichiers (rangement)", "File names (organize)";
    Change => "Changer", "Change";
    OrganizeTemplate => "Chaque fichier identifié va à la place que lui donne le modèle, dans le dossier de sa plateforme :", "Each identified file goes where the template puts it, inside its platform's folder:";
    OrganizeToMove => "à déplacer", "to move";
    OrganizeTaken => "dont la place est occupée", "whose place is taken";
    OrganizeTakenOne => "place prise : ne bouge pas", "place taken: stays";
    OrganizeInPlace => "déjà en place", "already in place";
    OrganizeFrom => "Emplacement actuel", "Current location";
    OrganizeTo => "Après le rangement", "After organizing";
    OrganizeStart => "Ranger les fichiers", "Organize the files";
    OrganizeRuns => "Rangements passés (chacun peut être annulé)", "Past runs (each can be undone)";
    OrganizeMoved => "déplacés", "moved";
    OrganizeUndone => "annulé le", "undone on";
    DedupeTitle => "Versions remplacées et doublons", "Superseded versions and duplicates";
    DedupeRuleUncompressed => "Pour chaque titre, la version saine la plus récente reste (un fichier endommagé ne reste jamais à la place d'un fichier sain, et n'est jamais mis à la corbeille pour être plus récent) ; entre deux copies de la même version, le fichier non compressé (.nsp, .xci). Les autres vont à la corbeille, d'où on peut les restaurer.", "For each title the newest undamaged version stays (a damaged file never stays in place of a sound one, nor goes to the trash for being newer); between two copies of the same version, the uncompressed file (.nsp, .xci). The others go to the trash, where they can be restored from.";
    DedupeRuleCompressed => "Pour chaque titre, la version saine la plus récente reste (un fichier endommagé ne reste jamais à la place d'un fichier sain, et n'est jamais mis à la corbeille pour être plus récent) ; entre deux copies de la même version, le fichier compressé (.nsz, .xcz). Les autres vont à la corbeille, d'où on peut les restaurer.", "For each title the newest undamaged version stays (a damaged file never stays in place of a sound one, nor goes to the trash for being newer); between two copies of the same version, the compressed file (.nsz, .xcz). The others go to the trash, where they can be restored from.";
    DedupeNothing => "Aucune version remplacée ni doublon.", "No superseded version and no duplicate.";
    KeptCopy => "Copie gardée", "Copy kept";
    DedupeStart => "Mettre à la corbeille", "Move to the trash";
    OrganizeAskText => "Ce rangement pourra être annulé depuis cette page, sous « Rangements passés ».", "This run can be undone from this page, under “Past runs”.";
    OrganizeNothing => "Rien à déplacer : chaque fichier est à sa place, ou la sienne est prise.", "Nothing to move: every file is in its place, or its place is taken.";
    OrganizeUndoButton => "Annuler ce rangement", "Undo this run";
    // Task labels, results, trash reasons (the service's words, translated for people).
    TaskScan => "Analyse", "Scan";
    TaskConvert => "Décompression", "Decompress";
    TaskPush => "Envoi", "Push";
    TaskTitles => "Données de titres", "Title data";
    TaskOrganize => "Rangement", "Organize";
    TaskOrganizeUndo => "Annulation d'un rangement", "Undoing an organize run";
    TaskDedupe => "Doublons à la corbeille", "Duplicates to the trash";
    TaskVerify => "Vérification", "Verify";
    TaskCompress => "Compression", "Compress";
    TaskFolderAdd => "Ajout d'un dossier", "Adding a folder";
    TaskFolderRemove => "Retrait d'un dossier", "Removing a folder";
    // Nouns in French: they follow a task's name of either gender ("Rangement ·
    // succès", "Analyse · échec").
    ResultOk => "succès", "succeeded";
    ResultPartial => "succès partiel", "finished with errors";
    // Honest progress and failures.
    BusyBecause => "Les tâches ne peuvent pas démarrer pendant :", "Tasks cannot start during:";
    NoRoom => "Espace insuffisant : libérez de la place (en vidant la corbeille) avant de décompresser.", "Not enough room: free some space (empty the trash) before decompressing.";
    FailedFiles => "Fichiers en échec", "Files that failed";
    NotListed => "de plus, non listés (voir le journal)", "more, not listed (see the log)";
    NoFailure => "Aucun fichier n'a échoué.", "No file failed.";
    CancelAction => "Annuler", "Cancel";
    Damaged => "Endommagé", "Damaged";
    PushDamagedTitle => "Un fichier de ce titre est endommagé : la console refusera sans doute de l'installer, ou l'installation échouera en route. Ajouter quand même le titre à la liste d'envoi ?", "A file of this title is damaged: the console will likely refuse to install it, or the install will fail midway. Add the title to the push list anyway?";
    PushDamaged => "Ce fichier est endommagé : la console refusera sans doute de l'installer, ou l'installation échouera en route. L'ajouter quand même à la liste d'envoi ?", "This file is damaged: the console will likely refuse to install it, or the install will fail midway. Add it to the push list anyway?";
    Undo => "Annuler", "Undo";
    InTrash => "« {name} » est dans la corbeille.", "“{name}” is in the trash.";
    ResultFailed => "échec", "failed";
    ResultCancelled => "annulation", "cancelled";
    ResultInterrupted => "interruption", "interrupted";
    ResultRunning => "en cours", "running";
    ReasonDeleted => "supprimé", "deleted";
    ReasonConverted => "remplacé par sa version décompressée", "replaced by its decompressed file";
    ReasonCompressed => "remplacé par sa version compressée, vérifiée", "replaced by its verified compressed file";
    ReasonRecovered => "retrouvé au démarrage", "recovered at start";
    ReasonSuperseded => "remplacé par une version plus récente", "superseded by a newer version";
    ReasonDuplicate => "doublon d'une copie gardée", "duplicate of a copy kept";
    ReasonSave => "sauvegarde d'une console", "a console's save backup";
    // A console's page.
    ConsoleConnected => "connectée", "connected";
    From => "depuis", "from";
    ConsoleWaiting => "En attente de la première requête de la console…", "Waiting for the console's first request…";
    Saves => "Sauvegardes", "Saves";
    SavesIntro => "Ce qu'ont déposé la synchronisation des sauvegardes de CyberFoil et JKSV (par WebDAV) ; chaque dépôt est une version, rien n'est écrasé.", "What CyberFoil's save sync and JKSV (over WebDAV) sent; each upload is a version, nothing is overwritten.";
    NoSaves => "Aucune sauvegarde pour l'instant.", "No saves yet.";
    SavesInTrash => "Dans la corbeille", "In the trash";
    MoreInTrash => "Les autres sont sur la page Corbeille.", "The others are on the Trash page.";
    JksvHeading => "JKSV (WebDAV)", "JKSV (WebDAV)";
    JksvIntro => "Copiez ce fichier dans SD:/config/JKSV/webdav.json sur la console, avec son mot de passe :", "Copy this file to SD:/config/JKSV/webdav.json on the console, with its password:";
    ConsolePasswordHere => "LE MOT DE PASSE DE LA CONSOLE", "THE CONSOLE'S PASSWORD";
    NoAccountCreateOne => "Aucun compte n'existe encore : créez le premier administrateur.", "No account exists yet: create the first admin.";
    // Administering from the browser (accounts, trash purges, restore under another
    // name, the 404 page).
    You => "vous", "you";
    Role => "Rôle", "Role";
    MakeAdmin => "Rendre administrateur", "Make admin";
    MakeViewer => "Rendre lecteur", "Make viewer";
    RemoveAccount => "Supprimer le compte", "Remove the account";
    ResetPassword => "Réinitialiser le mot de passe", "Reset the password";
    SetPassword => "Définir le mot de passe (ses sessions seront fermées)", "Set the password (its sessions will end)";
    AddAccount => "Ajouter un compte", "Add an account";
    CreateAccount => "Créer le compte", "Create the account";
    AccountsNote => "Votre propre compte se gère plus haut ; un autre administrateur peut le supprimer ou le rendre lecteur. Le dernier administrateur reste administrateur.",
        "Your own account is managed above; another admin can remove it or make it a viewer. The last admin stays an admin.";
    EmptyTrash => "Vider la corbeille", "Empty the trash";
    PurgeConverted => "Supprimer les .nsz/.xcz décompressés", "Delete the decompressed .nsz/.xcz";
    RestoreAs => "Restaurer sous un autre nom", "Restore under another name";
    RestoreAsNote => "Un fichier occupe déjà sa place : restaurez-le sous un autre nom, dans le même dossier.",
        "A file already takes its place: restore it under another name, in the same folder.";
    NewName => "Nouveau nom", "New name";
    PageNotFound => "Page introuvable", "Page not found";
    PageFailed => "Cette page n'a pas pu s'afficher", "This page could not be shown";
    PageNotFoundText => "Aucune page n'existe à cette adresse. Vérifiez-la, ou repartez d'ici :", "No page exists at this address. Check it, or start again from here:";
    // Library pages' pager, orders and counts; the console page's guidance and
    // connection test (web-device).
    TitleOne => "titre", "title";
    ResultOne => "résultat", "result";
    UnknownFileOne => "fichier non identifié", "unidentified file";
    Pages => "Pages", "Pages";
    FirstPage => "Première", "First";
    LastPage => "Dernière", "Last";
    GoToPage => "Aller à la page", "Go to page";
    Go => "Aller", "Go";
    OrderAtoZ => "A → Z", "A → Z";
    OrderZtoA => "Z → A", "Z → A";
    OrderNewest => "plus récents d'abord", "newest first";
    OrderOldest => "plus anciens d'abord", "oldest first";
    OrderLargest => "plus gros d'abord", "largest first";
    OrderSmallest => "plus petits d'abord", "smallest first";
    SortedHint => "Trier selon cette colonne", "Sort by this column";
    PushBefore => "Avant d'envoyer", "Before pushing";
    PushStepInstaller => "Sur la console, ouvrez un installateur qui reçoit les envois par le réseau : Awoo Installer, CyberFoil ou TinWoo (menu « Install over LAN or internet »), ou le mode d'installation réseau de Tinfoil.",
        "On the console, open an installer that takes network pushes: Awoo Installer, CyberFoil or TinWoo (the “Install over LAN or internet” menu), or Tinfoil's network install mode.";
    PushStepScreen => "Restez sur son écran d'attente : il écoute sur le port 2000 et affiche en général l'adresse IP de la console, celle à saisir ici.",
        "Stay on its waiting screen: it listens on port 2000 and usually shows the console's IP address, the one to enter here.";
    PushStepNetwork => "La console et cette machine doivent être sur le même réseau local (même box, même Wi-Fi, sans VPN entre les deux).",
        "The console and this machine must be on the same local network (same router, same Wi-Fi, no VPN between them).";
    PushStepChoose => "Cliquez sur « Envoyer à la console », puis choisissez sur la console les jeux à installer et la destination (carte SD ou mémoire interne).",
        "Click “Push to the console”, then pick on the console the games to install and where (SD card or internal memory).";
    PushNotDbi => "DBI et Goldleaf ne reçoivent pas d'envoi : avec DBI, passez par la boutique (page Consoles).",
        "DBI and Goldleaf cannot receive pushes: with DBI, use the shop (the Consoles page).";
    PushLoopback => "Envoi impossible tant que le service n'écoute que sur cette machine : la console ne pourrait pas télécharger les jeux. Changez l'adresse d'écoute sur la page Consoles (0.0.0.0).",
        "Cannot push while the service listens on this machine only: the console could not download the games. Change the listening address on the Consoles page (0.0.0.0).";
    PushNoDevice => "Envoi impossible : aucune console n'est configurée.", "Cannot push: no console is set up.";
    PushNeedsDevice => "Envoi impossible : configurez d'abord la console ci-dessous.", "Cannot push: set up the console below first.";
    ConsoleSettings => "Réglages de la console", "Console settings";
    TestConnection => "Tester la connexion", "Test the connection";
    TestingConnection => "Connexion à la console…", "Connecting to the console…";
    TestNote => "Le test ouvre une connexion vers l'installateur puis la ferme aussitôt ; le service ne le fait jamais de lui-même.",
        "The test opens a connection to the installer and closes it at once; the service never does it on its own.";
    ProbeOpen => "La console répond : un installateur attend sur ce port. Si le test l'a fait quitter son écran d'attente, rouvrez-le avant d'envoyer.",
        "The console answers: an installer is waiting on that port. If the test sent it off its waiting screen, open it again before pushing.";
    ProbeRefused => "Connexion refusée : la console est là, mais aucun installateur n'attend sur ce port. Ouvrez son écran d'installation par le réseau, puis réessayez.",
        "Connection refused: the console is there, but no installer is waiting on that port. Open its network install screen, then try again.";
    ProbeTimedOut => "Pas de réponse en 3 secondes : adresse fausse, console éteinte ou en veille, autre réseau, ou un pare-feu qui bloque.",
        "No answer within 3 seconds: wrong address, console off or asleep, another network, or a firewall in the way.";
    ProbeNoRoute => "Cette machine ne peut pas joindre cette adresse : console éteinte, autre réseau ou VPN.",
        "This machine cannot reach that address: console off, another network, or a VPN.";
    // Counted nouns (`view::count`) and who started a task (`phrases::started_by`).
    FileWord => "fichier", "file";
    FilesWord => "fichiers", "files";
    DamagedFileWord => "fichier endommagé", "damaged file";
    DamagedFilesWord => "fichiers endommagés", "damaged files";
    LeftAloneOne => "laissé tel quel (non identifié ou lien)", "left alone (unidentified or a link)";
    LeftAloneMany => "laissés tels quels (non identifiés ou liens)", "left alone (unidentified or links)";
    StartedFromCli => "lancée en ligne de commande", "started from the command line";
    StartedAtStartup => "lancée au démarrage du service", "started when the service started";
    StartedByWatch => "lancée par un changement dans la bibliothèque", "started by a change in the library";
    StartedBySchedule => "lancée par la mise à jour programmée", "started by the scheduled refresh";
    StartedByKeys => "lancée par de nouvelles clés de la console", "started by new console keys";
    StartedHere => "lancée depuis cette machine", "started from this machine";
    // Error slugs, shown by the page's script.
    ErrBadRequest => "Requête invalide", "Bad request";
    ErrUnauthorized => "Connexion requise ou refusée", "Sign-in needed or refused";
    ErrForbidden => "Interdit", "Forbidden";
    ErrNotFound => "Introuvable", "Not found";
    ErrConflict => "Conflit", "Conflict";
    ErrBusy => "Une tâche est déjà en cours", "A task is already running";
    ErrRateLimited => "Trop d'essais ; réessayez plus tard", "Too many attempts; try again later";
    ErrInternal => "Erreur interne du service", "Internal service error";
    ErrNetwork => "Le service ne répond pas", "The service is not responding";
    // A new user's first hour (issue 40): the menu button, where the games go, what next.
    Menu => "Menu", "Menu";
    Welcome => "Ludothèque est prête", "Ludothèque is ready";
    WelcomeIntro => "Votre compte administrateur est créé. Voici où mettre les jeux et quoi faire ensuite.",
        "Your admin account is ready. Here is where the games go and what to do next.";
    WhereGamesGo => "Où mettre les jeux", "Where the games go";
    GamesGoHere => "Copiez vos fichiers de jeux (.nsp, .nsz, .xci, .xcz) dans ce dossier du serveur ; des sous-dossiers conviennent :",
        "Copy your game files (.nsp, .nsz, .xci, .xcz) into this folder on the server; subfolders are fine:";
    GamesGoThere => "Les fichiers de jeux (.nsp, .nsz, .xci, .xcz) vont dans le dossier de la bibliothèque, sur le serveur, choisi par l'administrateur au lancement du service.",
        "The game files (.nsp, .nsz, .xci, .xcz) go in the library folder on the server, which the administrator chose when starting the service.";
    GamesSeen => "Le service remarque seul les fichiers ajoutés et les analyse ; une analyse les lit aussi à la demande.",
        "The service notices new files by itself and scans them; a scan also reads them on demand.";
    DataFolder => "Dossier des données", "Data folder";
    DataFolderNote => "la base, les clés et les données de titres : c'est lui qu'il faut sauvegarder",
        "the database, the keys and the title data: the folder to back up";
    NextSteps => "Ensuite", "Next";
    StepScan => "Analyser la bibliothèque", "Scan the library";
    StepScanText => " (Tâches) : lit les fichiers copiés et les regroupe par titre.", " (Tasks): reads the files you copied and groups them by title.";
    StepTitles => "Télécharger les données de titres", "Download the title data";
    StepTitlesText => " (Réglages) : les noms des jeux, et les mises à jour et DLC qui manquent.", " (Settings): the games' names, and the updates and DLC you lack.";
    StepKeys => "Ajouter les clés de la console", "Add the console keys";
    StepKeysText => " (Réglages, facultatif) : le fichier prod.keys de votre console, pour lire ce que contient un fichier mal nommé.",
        " (Settings, optional): your console's prod.keys file, to read what a badly named file holds.";
    StepConsole => "Connecter une console", "Connect a console";
    StepConsoleText => " (Consoles) : un accès pour Tinfoil, CyberFoil, DBI ou Sphaira, ou l'envoi vers une console.",
        " (Consoles): a login for Tinfoil, CyberFoil, DBI or Sphaira, or sending to a console.";
    ToDashboard => "Aller au tableau de bord", "Go to the dashboard";
    LibraryEmpty => "La bibliothèque ne contient encore aucun fichier.", "The library holds no file yet.";
    SettingsPages => "Autres pages des réglages", "More settings pages";
    // The Consoles page: the shop's logins apart from the console games are sent to.
    ShopHeading => "Installateurs sur vos consoles", "Installers on your consoles";
    TinfoilFields => "Dans Tinfoil : File Browser, touche −, puis ces champs (nommés en anglais, comme Tinfoil les affiche) :", "In Tinfoil: File Browser, press −, then these fields:";
    LoginName => "le nom de l'accès", "the login's name";
    ShownOnAdd => "affiché une fois, à l'ajout de l'accès", "shown once, when the login is added";
    NewConsolePassword => "Nouveau mot de passe", "New password";
    // The command line's words (`cli`).
    Console => "Console", "Console";
    OfferedAddress => "Adresse annoncée", "Offered address";
    DetectedEachPush => "détectée à chaque envoi", "detected at each push";
    NoneYet => "aucun", "none";
    ByteWord => "octet", "byte";
    BytesWord => "octets", "bytes";
    ColId => "ID", "ID";
    ColName => "NOM", "NAME";
    ColPrefix => "PRÉFIXE", "PREFIX";
    ColAccess => "ACCÈS", "ACCESS";
    ColCreated => "CRÉÉ", "CREATED";
    ColAdded => "AJOUTÉE", "ADDED";
    ColLastUsed => "DERNIÈRE UTILISATION", "LAST USED";
    ColState => "ÉTAT", "STATE";
    ColRole => "RÔLE", "ROLE";
    ColLanguage => "LANGUE", "LANGUAGE";
    ColUser => "utilisateur", "user";
    KeyReadOnly => "lecture seule", "read-only";
    KeyFull => "complet", "full";
    KeyActive => "active", "active";
    Again => "Confirmation", "Confirm";
    KeysImportHint => "« ludotheque keys import FICHIER » importe le prod.keys extrait de votre console avec Lockpick_RCM.",
        "“ludotheque keys import FILE” imports the prod.keys dumped from your console with Lockpick_RCM.";
    ColCreatedKey => "CRÉÉE", "CREATED";
    ColPassword => "mot de passe", "password";
    DropSuperseded => "remplacé", "superseded";
    DropDuplicate => "doublon", "duplicate";
    DropKept => "gardé", "kept";
    PlaceTaken => "place prise, non déplacé", "place taken, not moved";
    UpdateWord => "mise à jour", "update";
    DlcWord => "DLC", "DLC";
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_detail_is_said_in_french() {
        use crate::error::{Detail, Reason};
        let note = Reason::Unreadable.then(Reason::NoHeader("PFS0".into()));
        let n = Lang::Fr.detail(&Detail::from(note));
        assert_eq!(
            n,
            "le conteneur est illisible\u{a0}: pas d'en-tête PFS0 là où il en faut un"
        );
    }

    #[test]
    fn every_message_has_both_languages() {
        for m in ALL {
            assert!(!m.get(Lang::Fr).is_empty(), "{m:?}");
            assert!(!m.get(Lang::En).is_empty(), "{m:?}");
        }
    }
}
