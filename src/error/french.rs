//! Every message in French: the command line's language, and the web interface's
//! for a French reader. The match is exhaustive, so a new message does not compile
//! until it is said here.

use super::counts::{duration, Grammar};
use super::msg::{Line, NcaFault, NotBack, VerifyGap};
use super::reason::Detail;
use super::Msg;
use crate::words::{KeysState, PushEnd, Unit};

impl Msg {
    /// The message in French.
    pub fn french(&self) -> String {
        use Msg::*;
        match self {
            Internal => "erreur interne du service ; le détail est dans son journal".into(),
            DatabaseTooNew => "la base de données a été écrite par une version plus récente de ludotheque ; installez cette version ou une plus récente.".into(),
            DataLocked => "un serveur ludotheque utilise déjà ce dossier de données ; arrêtez-le d'abord, ou passez par l'API.".into(),
            LibraryUnavailable => "le dossier de la bibliothèque est absent, illisible ou vide ; rien n'a été changé. Vérifiez que son disque est monté.".into(),
            Busy => "une tâche est déjà en cours ; réessayez quand elle sera finie".into(),
            Cancelled => "la tâche a été annulée".into(),
            Overloaded => "le service est occupé ; réessayez dans un instant".into(),
            RateLimited => "trop de requêtes ; patientez avant de réessayer".into(),
            NoRoute => "cette route n'existe pas".into(),
            MethodNotAllowed => "cette méthode n'est pas permise sur cette route".into(),
            ApiKeyRequired => "une clé d'API valide est nécessaire (en-tête X-Api-Key)".into(),
            LoginFailed => "nom ou mot de passe incorrect".into(),
            CrossOrigin => "les requêtes d'un autre site qui changent l'état sont refusées".into(),
            KeyOutOfScope => "une clé d'API n'atteint que les routes /api/v1/".into(),
            ShopCredentialsRequired => "la boutique demande le nom et le mot de passe d'une console (HTTP Basic) ; un administrateur les crée avec « ludotheque console add NOM »".into(),
            KeyNotForShop => "une clé d'API n'ouvre pas la boutique : utilisez le nom et le mot de passe d'une console (HTTP Basic)".into(),
            KeyReadOnly => "cette clé d'API est en lecture seule".into(),
            ViewerReadOnly => "un compte lecteur peut tout consulter mais ne rien modifier".into(),
            PayloadTooLarge { limit } => format!("le corps de la requête dépasse la limite de {limit} octets"),
            UriTooLong { limit } => format!("la cible de la requête dépasse la limite de {limit} octets"),
            HeadersTooLarge { limit } => format!("les en-têtes dépassent la limite de {limit} octets"),
            OneHostHeader => "une requête porte un seul en-tête Host".into(),
            BadTarget => "la cible de la requête est un chemin commençant par / (ou une URL http:// absolue)".into(),
            BodyUnreadable => "le corps de la requête est illisible".into(),
            BodyTooSlow => "le corps de la requête n'est pas arrivé à temps".into(),
            AmbiguousLength { why } => format!("la longueur de la requête est ambiguë ({why}) ; la connexion est fermée"),
            MissingParameter { name } => format!("le paramètre « {name} » est obligatoire"),
            BadJson { expected } => format!("un objet JSON était attendu avec {expected}"),
            SearchTooLong { bytes, words } => format!("une recherche a au plus {bytes} octets et {words} mots"),
            BadGameType => "le type est BASE, UPDATE, DLC ou INCONNU".into(),
            NoSuchFile => "ce fichier n'existe pas".into(),
            NoSuchDownload => "ce téléchargement n'existe pas".into(),
            FileGone => "ce fichier n'est plus dans la bibliothèque".into(),
            NameLength { max, .. } => format!("un nom a de 1 à {max} caractères, sans espace au début ni à la fin"),
            NameControl { .. } => "un nom ne peut pas contenir de caractère de contrôle (retour à la ligne, tabulation)".into(),
            NameInvisible { .. } => "un nom ne peut pas contenir de caractère invisible : ni caractère de format (catégorie Unicode Cf : espaces et liants sans chasse, marques, enchâssements, forçages et isolats de direction, indicateur d'ordre des octets), ni autre caractère ignorable par défaut (sélecteurs de variante, remplissages, trait d'union conditionnel), ni autre espace que l'espace ordinaire".into(),
            PasswordTooShort { min } => format!("un mot de passe a au moins {min} caractères"),
            PasswordTooLong { max } => format!("un mot de passe a au plus {max} octets"),
            BadRole => "un rôle est « admin » ou « viewer »".into(),
            AccountExists => "un compte porte déjà ce nom (sans distinction de majuscules)".into(),
            AlreadySetUp => "un compte existe déjà : connectez-vous".into(),
            NoAccount { name } => format!("aucun compte ne s'appelle {name} (voir « ludotheque user list »)"),
            SetupCodeNeeded => "le premier compte demande le code de premier lancement que le service a écrit dans son journal à son démarrage (le terminal qui le lance, « journalctl -u ludotheque » ou « docker logs CONTENEUR »), ou « ludotheque user add NOM --admin » sur sa machine".into(),
            SetupCodeWrong => "ce n'est pas le code de premier lancement ; il est sur la ligne « …with the setup code CODE… » que le service a écrite dans son journal à son démarrage (le terminal qui le lance, « journalctl -u ludotheque » ou « docker logs CONTENEUR »)".into(),
            NotSignedIn => "seul un compte connecté a une langue et un mot de passe".into(),
            BadLang => "la langue est « fr » ou « en »".into(),
            AdminOnly => "seul un administrateur voit les comptes".into(),
            NoApiKey { id } => format!("aucune clé d'API n'a l'identifiant {id} (voir « ludotheque apikey list »)"),
            // The caller's own input, repeated only when it looks like a key of the
            // library: never something shaped like a path of the server.
            NoGame { key } if key.starts_with('/') || key.contains("..") => "aucun jeu ne se trouve à ce chemin".into(),
            NoGame { key } => format!("aucun jeu ne se trouve à « {key} »"),
            NotTitleId => "ce n'est pas un identifiant de titre".into(),
            ConsoleCredentialsRequired => "les sauvegardes demandent le nom et le mot de passe d'une console (HTTP Basic), comme la boutique".into(),
            NoSave => "cette console n'a pas cette sauvegarde".into(),
            BadSaveId => "un identifiant de sauvegarde a de 1 à 96 caractères parmi A-Z, a-z, 0-9, « . », « _ » et « - »".into(),
            NoSaveArchive => "la requête ne contient pas d'archive de sauvegarde : envoyez-la dans le champ « file »".into(),
            SaveNotZip => "l'archive de sauvegarde n'est pas un fichier zip lisible ; rien n'a été gardé".into(),
            SaveUnsafeEntry { entry } => format!("l'archive de sauvegarde contient une entrée qui pourrait écrire hors de son dossier (« {entry} ») ; rien n'a été gardé"),
            NotMultipart => "un dépôt de fichier est un corps multipart/form-data".into(),
            SaveRestoreName => "une sauvegarde revient sous son propre nom".into(),
            SaveDiskFull => "le disque du dossier de données est plein : rien n'a été gardé, et les versions précédentes sont intactes".into(),
            DavTaken => "quelque chose est déjà là, et la requête demande de ne pas l'écraser".into(),
            DavNoParent => "le dossier où il irait n'existe pas".into(),
            DavBody => "un nouveau dossier ne prend pas de corps".into(),
            DavBadXml => "le corps XML est mal formé, ou n'est pas ce que cette méthode prend".into(),
            DavBadPath => "un segment du chemin est vide, « . », « .. », ou contient un caractère de contrôle ou « \\ »".into(),
            DavIsFolder => "c'est un dossier".into(),
            DavSame => "la source et la destination sont les mêmes, ou l'une contient l'autre".into(),
            DavBadDestination => "l'en-tête Destination ne nomme aucun endroit de l'espace de cette console".into(),
            DavRoot => "le dossier propre à la console ne peut être ni supprimé, ni déplacé, ni remplacé".into(),
            DavTooMany { max } => format!("c'est plus de {max} entrées, ou une réponse plus grande que ce que le service donne d'un coup : demandez-en moins (Depth: 1, moins de propriétés)"),
            DavTooDeep { max } => format!("un chemin a au plus {max} dossiers"),
            DavPropsTooLarge => "la valeur d'une propriété fait au plus 64 Kio, et un fichier a au plus 256 propriétés et 256 Kio de propriétés en tout".into(),
            SaveQuota { quota } => format!("les sauvegardes de cette console dépasseraient leur quota de {quota} octets : rien n'a été gardé"),
            FormFieldTooLong { max } => format!("un champ du formulaire autre que le fichier fait au plus {max} octets"),
            NothingOfTitle { id } => format!("la bibliothèque n'a rien du titre « {id} »"),
            NotCompressed { key } => format!("seuls les .nsz et .xcz se décompressent ; « {key} » n'en est pas un"),
            BadSlug => "un identifiant de plateforme a de 1 à 32 caractères parmi a-z, 0-9 et « - »".into(),
            BadFolder => "le dossier est un chemin dans la bibliothèque, comme « retro/gba », sans « .. »".into(),
            FolderRefused => "le dossier ne peut être ni un lien, ni un dossier caché, ni la corbeille".into(),
            BadExtensions => "les extensions sont de courts mots de lettres et de chiffres, comme « gba, zip »".into(),
            PlatformExists => "une plateforme a déjà cet identifiant".into(),
            NoPlatform => "aucune plateforme n'a cet identifiant".into(),
            LastPlatform => "la dernière plateforme ne peut pas être retirée".into(),
            NoTrashEntry => "aucune entrée de la corbeille n'a cet identifiant (voir « ludotheque trash list »)".into(),
            TrashFolderLink => "le dossier de la corbeille est un lien ou n'est pas un dossier ; rien n'a été fait. Retirez-le à la main.".into(),
            TrashEntryVanished => "le fichier de cette entrée de la corbeille a disparu".into(),
            TrashEntryLink => "cette entrée de la corbeille passe par un lien ou est un dossier ; rien n'a été déplacé".into(),
            KeyOccupied => "un fichier occupe déjà cet emplacement ; rien n'a été déplacé".into(),
            LinkOnTheWay => "un dossier sur le chemin est un lien ou n'est pas un dossier ; rien n'a été déplacé".into(),
            NoDevice => "aucune console n'est configurée : configurez-en une sur la page d'envoi ou avec « ludotheque device set »".into(),
            ShopMessage { max } => format!("le message de la boutique a au plus {max} caractères, sans caractère de contrôle"),
            ConsoleNameColon => "le nom d'une console ne peut pas contenir « : » (HTTP Basic y arrête le nom)".into(),
            ConsoleNameDots => "le nom d'une console ne peut pas être « . » ni « .. » (dans une adresse, ils désignent un dossier)".into(),
            ConsoleNameAddress => "le nom d'une console ne peut pas être une adresse IP : avec --shop-public, les clients sans nom sont connus par leur adresse".into(),
            ConsoleExists { name } => format!("une console s'appelle déjà « {name} »"),
            NoConsole { name } => format!("aucune console ne s'appelle « {name} » (voir « ludotheque console list »)"),
            ConsoleAddressNotIp => "l'adresse de la console doit être une adresse IP".into(),
            BadPort => "le port de la console est entre 1 et 65535".into(),
            OfferAddressNotIp => "l'adresse annoncée à la console doit être une adresse IP".into(),
            BadConsoleAddress { host } => format!("l'adresse de la console {host} n'est pas valable"),
            NoRouteToConsole => "aucune route vers la console n'a été trouvée".into(),
            ListenUnreachable { listen, port } => format!("le service écoute sur {listen}, que la console ne peut pas joindre : écoutez sur le réseau (--listen 0.0.0.0:{port})"),
            ConsoleNotWaiting => "la console n'attend pas sur son écran d'installation réseau (la connexion a échoué) ; rien n'a quitté la liste".into(),
            NothingReached { address } => format!("aucune requête n'est arrivée : la console n'a pas pu joindre {address} (pare-feu, mauvaise adresse, VPN ?)"),
            NotInPushList { key } => format!("« {key} » n'est pas dans la liste d'envoi"),
            ConvertFailed { key, reason } => format!("{key} : la décompression a échoué ({})", reason.french()),
            ConvertTargetExists { key, target } => format!("{key} : {target} existe déjà ; ignoré"),
            NoDataFolder { folder } => format!("le dossier de données {folder} n'existe pas : lancez la commande là où il est, nommez-le avec --data (ou LUDOTHEQUE_DATA), ou démarrez une première fois le service (ludotheque serve), qui le crée"),
            DataFolderPrivate => "le dossier de données ne peut pas être rendu privé".into(),
            FolderUnusable { what } => format!("le dossier {} ne peut être ni créé ni ouvert", if what == "data" { "de données" } else { "de la bibliothèque" }),
            AtLeastOne => "--workers, --queue, --max-connections, --shop-downloads et --shop-downloads-total valent au moins 1".into(),
            TimeoutsAtLeastOne => "--idle-timeout-secs, --request-timeout-secs et --write-timeout-secs valent au moins 1".into(),
            RatesPositive => "les limites de débit sont positives (--key-rate, --key-burst, --auth-failures-per-minute)".into(),
            UnknownUser { name } => format!("--local-access-users : aucun utilisateur de cette machine ne s'appelle « {name} »"),
            CannotListen { address } => format!("impossible d'écouter sur {address}"),
            TaskInterrupted { task, done, total, unit } => format!("la tâche {task} a été interrompue ({} sur {})", amount(*done, *unit), n(*total)),
            // The reason is the run's own message, kept as data and said in French.
            TaskFailed { task, message } => format!("la tâche {task} a échoué : {message}"),
            TaskRunning { task, by } => format!("une tâche est déjà en cours : {task}, lancée par {by} ; réessayez quand elle sera finie"),
            HandoffRefused => "le service en cours a fermé la connexion sans lancer la tâche ; son journal dit pourquoi".into(),
            HandoffLost => "la connexion au service en cours a été perdue avant la fin de la tâche ; la tâche continue dans le service (voir sa page Tâches)".into(),
            CannotOpen { file } => format!("le fichier {file} ne peut pas être ouvert"),
            BadTitleFile { file, reason } => format!("{file} n'est pas un fichier de données de titres lisible : {} ; les données précédentes sont conservées", reason.french()),
            NotTitleFile { file } => format!("le fichier {file} n'est aucun des fichiers de données de titres (versions.txt, versions.json, ou un fichier de région comme US.en.json)"),
            NoTitle { id } => format!("aucun titre de la bibliothèque n'a l'identifiant {id}"),
            BadRegion => "une région s'écrit deux lettres, un point et deux lettres, comme US.en".into(),
            BadTitleUrl => "l'adresse des données de titres doit être en http(s), sans requête".into(),
            BadHealthUrl => "--url doit être l'adresse de base du service, http(s)://HÔTE:PORT, sans requête".into(),
            HealthPortZero => "le service écoute sur le port 0 (un port libre qu'il choisit) : donnez son adresse avec --url".into(),
            HealthUnreachable { url } => format!("le service à l'adresse {url} ne répond pas"),
            Unhealthy { url, status } => format!("le service à l'adresse {url} a répondu {status} à sa vérification de santé"),
            HealthNotOk { url } => format!("le service à l'adresse {url} n'a pas répondu « ok » à sa vérification de santé"),
            BadWebhookUrl => "l'adresse du webhook doit être en http(s), avec un hôte, sans espace".into(),
            WebhookSecretAlone => "un secret de webhook demande une adresse de webhook".into(),
            WebhookUrlFile => "le fichier de l'adresse du webhook ne peut pas être lu".into(),
            NotifyFile => "le fichier des destinataires de notifications ne peut pas être lu".into(),
            BadPublicUrl => "--public-url doit être une adresse http(s) avec un hôte, en ASCII (un nom international sous sa forme xn--), sans blanc".into(),
            BadNotifyUrl { shown } => format!("{shown} n'est pas un destinataire de notifications : utilisez ntfy://, ntfys://, gotify://, gotifys://, discord://, tgram://, json:// ou jsons:// (NOTIFICATIONS dans ludotheque-serve(1))"),
            NoNotifyTarget => "aucun destinataire de notifications n'a cet identifiant".into(),
            NotifyTargetFixed => "ce destinataire a été donné au démarrage (--notify ou --notify-file)  : c'est là qu'il faut le retirer".into(),
            NotifyFailed { reason } => format!("le message de test n'a pas pu être envoyé : {reason}"),
            NotifySent => "message de test envoyé".into(),
            NotifyTestRunning => "un message de test est en cours d'envoi : attendez sa réponse, puis réessayez".into(),
            NoteNewGames { count, names } => format!("{} dans la bibliothèque : {names}", match count { 1 => "1 nouveau titre".to_string(), n => format!("{} nouveaux titres", FR.number(*n)) }),
            NoteUpdates { count, names } => format!("{} de la bibliothèque {} des mises à jour ou des DLC que vous n'avez pas : {names}", plural(*count, "titre", "titres"), agree(*count, "a", "ont")),
            NoteTaskEnded { task, failed, message } => format!("la tâche {} {} : {}", super::i18n::M::of_task(*task).get(crate::words::Lang::Fr).to_lowercase(), if *failed { "a échoué" } else { "s'est terminée avec des erreurs" }, message.french()),
            NoteDamaged { count } => plural(*count, "fichier endommagé trouvé", "fichiers endommagés trouvés"),
            NoteLibraryOffline => "le dossier de la bibliothèque est absent ou illisible : son disque est-il monté ?".into(),
            NoteSaveBackedUp { console, title } => format!("{console} a sauvegardé sa partie de {title}"),
            NoteLowSpace { library, percent, free } => format!("il ne reste que {percent} % de place ({}) sur le disque {}", FR.size(*free), if *library { "de la bibliothèque" } else { "du dossier de données" }),
            NoteTest => "Les notifications de Ludothèque vous parviennent ici.".into(),
            BadOrganizeTemplate => "le modèle de rangement doit être un chemin relatif finissant par .{ext}, avec pour seuls champs {name}, {dlc_name}, {title_id}, {base_title_id}, {version}, {type} et {ext}".into(),
            NoOrganizeRun => "aucun rangement n'a ce numéro (voir « ludotheque organize --list »)".into(),
            BadTitleStatus => "status doit valoir update_available, dlc_missing, base_missing, base_damaged, complete ou unknown".into(),
            BadMissingKind => "kind doit valoir update ou dlc".into(),
            BadMissingFormat => "format doit valoir csv ou json (ou être omis pour des pages)".into(),
            TitleSourceDown { file, reason } => format!("{file} n'a pas pu être téléchargé : {} ; les données précédentes sont conservées", reason.french()),
            FileExists { file } => format!("{file} existe déjà ; choisissez un autre fichier"),
            CannotCreate { file } => format!("{file} ne peut pas être créé"),
            BackupFailed { file } => format!("la sauvegarde vers {file} a échoué"),
            PasswordUnreadable { reason } => format!("lecture du mot de passe : {reason}"),
            PasswordsDiffer => "les deux mots de passe diffèrent".into(),
            NoRoomToConvert { needed, free } => format!("la décompression demande {} mais le disque de la bibliothèque n'a que {} de libre (les originaux restent dans la corbeille jusqu'à ce qu'on la vide) ; rien n'a été décompressé", bytes(*needed), bytes(*free)),
            ScanIdentified { files, read, identified } => format!("{} : {}, {} avec les clés de console", files_fr(*files), plural(*read, "lu", "lus"), plural(*identified, "fichier identifié", "fichiers identifiés")),
            ScanDone { files, read, unchanged, removed } => format!("{} : {}, {}, {}", files_fr(*files), plural(*read, "lu", "lus"), plural(*unchanged, "inchangé", "inchangés"), plural(*removed, "retiré", "retirés")),
            ScanIncomplete { files, read, unchanged, kept } => format!("{} : {}, {} ; une partie de la bibliothèque était illisible, donc {} {}", files_fr(*files), plural(*read, "lu", "lus"), plural(*unchanged, "inchangé", "inchangés"), plural(*kept, "introuvable", "introuvables"), agree(*kept, "gardé", "gardés")),
            TaskPartial { task, failed } => format!("la tâche {task} s'est terminée, mais {} {}", plural(*failed, "élément", "éléments"), agree(*failed, "a échoué", "ont échoué")),
CompressDone { compressed, skipped, failed, saved } => format!("{} ({} {}), {}, {} en échec", plural(*compressed, "fichier compressé", "fichiers compressés"), bytes(*saved), agree(*saved, "gagné", "gagnés"), plural(*skipped, "ignoré", "ignorés"), n(*failed)),
            CompressFailed { key, reason } => format!("{key} : la compression a échoué ({})", reason.french()),
            CompressTargetExists { key, target } => format!("{key} : {target} existe déjà ; ignoré"),
            CompressUnverified { key, why } => format!("{key} : le fichier compressé n'a pas passé la vérification ({}) ; l'original a été gardé", why.french()),
            NoRoomToCompress { needed, free } => format!("la compression demande {} mais le disque de la bibliothèque n'a que {} de libre (les originaux restent dans la corbeille jusqu'à ce qu'on la vide) ; rien n'a été compressé", bytes(*needed), bytes(*free)),
            AlreadyCompressed => "déjà compressé".into(),
            NotCompressible => "seuls les fichiers .nsp et .xci se compressent".into(),
            CompressKeyMissing { revision } => format!("les clés de la console n'ont pas la révision de clé {revision} ; laissé tel quel"),
            CompressGainTooSmall { size, compressed, min_gain } => format!("la compression ne gagnerait que {} % (moins de {min_gain} %) ; laissé tel quel", super::msg::gain_percent(*size, *compressed)),
                        ConvertDone { converted, failed } => format!("{}, {} en échec", plural(*converted, "fichier décompressé", "fichiers décompressés"), n(*failed)),
            PushEmpty => "la liste d'envoi est vide ; rien n'a été proposé".into(),
            PushDone { delivered, partial, untouched, ended } => {
                let how = match ended {
                    PushEnd::Ack => "la console a confirmé",
                    PushEnd::Drop => "la console a envoyé DROP",
                    PushEnd::Closed => "la console a fermé la connexion",
                    PushEnd::Quiet => "plus rien ne s'est passé pendant trop longtemps",
                };
                format!("{}, {} en partie, {} ({how})", plural(*delivered, "livré", "livrés"), n(*partial), plural(*untouched, "non envoyé", "non envoyés"))
            }
            TitlesDone { files, entries, renamed, icons } => format!("{} de données de titres {} : {} ; {} {}.{}", plural(*files, "fichier", "fichiers"), agree(*files, "importé", "importés"), plural(*entries, "entrée", "entrées"), plural(*renamed, "jeu", "jeux"), agree(*renamed, "renommé", "renommés"), icons_french(icons)),
            TitlesUnchanged { icons } => format!("les données de titres n'ont pas changé à la source.{}", icons_french(icons)),
            OrganizeDone { moved, run, taken, in_place, left } => {
                let undo = match moved {
                    0 => String::new(),
                    _ => format!(" (rangement {run} : son bouton « Annuler ce rangement » sur la page Rangement, ou « ludotheque organize --undo {run} », les remet en place)"),
                };
                format!("{}{undo} ; {}, {} déjà en place, {} (non identifiés ou liens)", plural(*moved, "fichier déplacé", "fichiers déplacés"), plural(*taken, "laissé car sa place est prise", "laissés car leur place est prise"), n(*in_place), plural(*left, "laissé tel quel", "laissés tels quels"))
            }
            OrganizeUndone { run, moved_back, skipped } => format!("rangement {run} annulé : {}, {} non", plural(*moved_back, "fichier remis en place", "fichiers remis en place"), n(*skipped)),
            OrganizeNotBack { why } => match why {
                NotBack::Gone => "non remis en place : il n'est plus là où le rangement l'avait mis",
                NotBack::Taken => "non remis en place : un autre fichier occupe sa place d'origine",
                NotBack::Failed => "non remis en place : le déplacement a échoué (voir le journal)",
            }
            .into(),
            OrganizeRunUndone { run } => format!("le rangement {run} est déjà annulé"),
            DedupeDone { superseded, duplicates, bytes: b } => format!("{} et {} mis à la corbeille ({})", plural(*superseded, "fichier remplacé", "fichiers remplacés"), plural(*duplicates, "doublon", "doublons"), bytes(*b)),
            VerifyDone { sound, damaged, unverifiable } => format!(
                "{}, {}, {}",
                plural(*sound, "fichier sain", "fichiers sains"),
                plural(*damaged, "endommagé", "endommagés"),
                plural(*unverifiable, "impossible à vérifier", "impossibles à vérifier")
            ),
            CompressNeedsKeys => "la compression demande les clés de console (prod.keys), et aucune n'est chargée ; rien n'a été compressé".into(),
            VerifyNeedsKeys => "la vérification demande les clés de console (prod.keys), et aucune n'est chargée ; rien n'a été vérifié".into(),
            TaskStopped => "le service s'est arrêté pendant cette tâche".into(),
            FolderUnreadable { folder } => format!("le dossier {folder} est illisible"),
            PlatformFolderRefused => "un dossier de plateforme est un lien ou un dossier caché ; il n'a pas été parcouru".into(),
            NameNotUtf8 => "un nom de fichier qui n'est pas de l'UTF-8 valable a été ignoré".into(),
            FileUnexaminable => "le fichier n'a pas pu être examiné".into(),
            FileDamaged { detail: why } => format!("le fichier est endommagé ou n'est pas un conteneur valable ({})", why.french()),
            NcaDamaged { nca, what, detail: why, more } => nca_damaged_french(nca, *what, why, *more),
            NotVerifiable { what, nca, detail: why } => not_verifiable_french(*what, nca, why),
            NotAFile { key, what } => {
                let what = match what.as_str() {
                    "fifo" => "un tube nommé (FIFO)",
                    "socket" => "une socket",
                    "device" => "un périphérique",
                    "folder" => "un dossier",
                    _ => "autre chose",
                };
                format!("{key} est {what}, pas un fichier ordinaire ; il n'est ni lu ni déplacé")
            }
            // Administrer depuis le navigateur.
            LastAdmin => "le dernier administrateur ne peut être ni supprimé ni rendu lecteur : faites d'abord d'un autre compte un administrateur".into(),
            NotOnYourself => "un administrateur ne peut pas supprimer, rétrograder ni réinitialiser son propre compte : un autre administrateur le peut (votre mot de passe se change avec le formulaire plus haut)".into(),
            BadRestoreName { ext } => format!("le nouveau nom est un nom de fichier seul (sans « / », ni « .. »), de 1 à 255 octets, finissant par .{ext} comme le fichier"),
            ConsoleKeysLine { line, why } => format!("la ligne {line} du fichier de clés de console est mal formée : {}", keys_line_french(why)),
            ConsoleKeysEmpty => "le fichier de clés de console ne contient aucune des clés dont le service se sert (header_key, master_key_XX, key_area_key_application_XX, titlekek_XX et les sources) : est-ce bien le prod.keys qu'écrit Lockpick_RCM ?".into(),
            ConsoleKeysTooLarge { limit } => format!("le fichier de clés de console dépasse {} : ce n'est pas un fichier prod.keys", bytes(*limit)),
            ConsoleKeysNotWritten => "le fichier de clés de console n'a pas pu être écrit ; le précédent est intact".into(),
            ConsoleKeysUnreadable => "le fichier de clés de console ne peut pas être lu (ses droits ?) ; le détail est dans le journal".into(),
            ConsoleKeysLink => "refusé : le fichier de clés de console du dossier de données est un lien symbolique, et il n'a pas été lu ; importez le fichier lui-même (« ludotheque keys import FICHIER »), ou nommez-le avec --keys".into(),
            StartedByUser { name } => format!("lancée par {name}"),
            StartedByKey { name } => format!("lancée par la clé d'API « {name} »"),
            FirstScan { done, total } => format!("Première analyse en cours ({} / {})", n(*done), n(*total)),
            TimeLeft { secs } => format!("encore {} environ", duration(*secs)),
            ConvertRoom { files, needed, free } => format!("{} à décompresser : {} une fois décompressés (les originaux restent dans la corbeille) ; {} libres sur le disque de la bibliothèque.", files_fr(*files), bytes(*needed), bytes(*free)),
            KeysNeedRevision { files, revision } => format!("{} {} la révision de clés 0x{revision} : ajoutez master_key_{revision} ou key_area_key_application_{revision}.", files_fr(*files), agree(*files, "demande", "demandent")),
            KeysWrongHeader { files } => format!("{} {} pas avec ces clés : header_key est-elle la bonne ?", files_fr(*files), agree(*files, "ne se déchiffre", "ne se déchiffrent")),
            KeysSuspect { names } => format!("Ces clés ne correspondent pas à leur somme de contrôle publique (CRC32) et ont peut-être été mal recopiées : {names}. Le fichier est utilisé tel quel."),
            ConfirmPurgeOne { name, bytes: b } => format!("Supprimer définitivement « {name} » ({}) ?", bytes(*b)),
            ConfirmPurgeConverted { files, bytes: b } => format!("Supprimer définitivement les .nsz/.xcz décompressés : {}, {} ? Leurs versions décompressées restent dans la bibliothèque.", files_fr(*files), bytes(*b)),
            ConfirmEmptyTrash { files, bytes: b } => format!("Vider la corbeille : supprimer définitivement {}, {} ?", files_fr(*files), bytes(*b)),
            Freed { files, bytes: b } => format!("{} définitivement : {} libérés.", plural(*files, "fichier supprimé", "fichiers supprimés"), bytes(*b)),
            ConfirmNewConsolePassword { name } => format!("Donner un nouveau mot de passe à « {name} » ? L'ancien cesse de fonctionner tout de suite ; le nouveau est affiché une seule fois."),
            ConfirmRemoveConsole { name } => format!("Retirer la console « {name} » ? Son mot de passe n'ouvrira plus la boutique."),
            ConfirmTrashSave { name } => format!("Mettre « {name} » à la corbeille ? On peut l'en restaurer."),
            SavesAdminOnly => "seul un administrateur télécharge les sauvegardes d'une console".into(),
            NameConflict { named, holds } => format!("Nommé {named}, contient {holds} : le contenu l'emporte."),
            ConfirmRemovePlatform { name } => format!("Retirer la plateforme « {name} » ? Ses fichiers restent sur le disque mais quittent la bibliothèque."),
            ConfirmMakeViewer { name } => format!("Rendre « {name} » lecteur ? Ce compte ne pourra plus rien changer."),
            ConfirmRemoveAccount { name } => format!("Supprimer le compte « {name} » ? Ses sessions seront fermées."),
            ConfirmRevokeKey { name } => format!("Révoquer la clé d'API « {name} » ? Les scripts qui s'en servent seront refusés."),
            ConvertAllAsk { files } => format!("Décompresser {} de la bibliothèque, .nsz/.xcz en .nsp/.xci ?", files_fr(*files)),
            CompressAllAsk { files, bytes: b } => format!("Compresser {} de la bibliothèque ({}), .nsp/.xci en .nsz/.xcz ? Chaque original va à la corbeille une fois sa copie écrite.", files_fr(*files), bytes(*b)),
            CompressEstimate { low, high, bytes: b } => format!("Gain estimé : {} à {} sur {} (35 à 50 % ; une estimation, le gain réel dépend des jeux).", bytes(*low), bytes(*high), bytes(*b)),
            CompressSaved { saved, trash } => format!("Dernière compression : {} gagnés ; la corbeille occupe {} (les originaux n'y libèrent rien avant d'être purgés).", bytes(*saved), bytes(*trash)),
            OrganizeUndoAsk { run, files } => format!("Remettre là où ils étaient les fichiers du rangement n°\u{a0}{run} ({}) ?", files_fr(*files)),
            PlanMore { more } => format!("… et {} de plus", n(*more)),
            DedupeKeptNote { what, key } => format!("{what} ; copie gardée : {key}"),
            DedupeAsk { files, bytes: b } => format!("Mettre {} ({}) à la corbeille ?", files_fr(*files), bytes(*b)),
            DedupeAskText { days, bytes: b } => format!("Chacun pourra être restauré depuis la corbeille pendant {days} jours ; l'espace ({}) est libéré quand la corbeille les efface.", bytes(*b)),
            OrganizeAsk { files } => format!("Déplacer {} ?", files_fr(*files)),
            ConfirmClearPush { files, bytes: b } => format!("Retirer de la liste d'envoi {} ({}) ? Ils restent dans la bibliothèque.", plural(*files, "fichier", "fichiers"), bytes(*b)),
            WhereGamesGo { folder } => format!("Déposez vos fichiers de jeux (.nsp, .nsz, .xci, .xcz) dans le dossier de la bibliothèque, « {folder} » (celui que nomme --library), dans les sous-dossiers de votre choix."),
            TemplateByFlag => "le modèle du rangement se règle au lancement avec --organize-template, qui l'emporte sur les Réglages".into(),
            RetentionByFlag => "la conservation de la corbeille se règle au lancement avec --trash-retention-days, qui l'emporte sur les Réglages".into(),
            BadRetention => "days doit être un nombre entier de 1 à 3650".into(),
            BadListenAddress { address } => format!("« {address} » n'est pas une adresse d'écoute : écrivez une adresse IP et un port, comme 0.0.0.0:8080 (tous les réseaux) ou 127.0.0.1:8080 (cette machine seulement)"),
            ListenInUse { address } => format!("impossible d'écouter sur {address} : un autre programme utilise ce port"),
            FilesFailed { files } => plural(*files, "fichier en échec", "fichiers en échec"),
            TooManyTitleFiles { max } => format!("au plus {max} fichiers de données de titres à la fois : versions.txt, versions.json et un fichier de région suffisent"),
            NoTitleFiles => "la requête ne contient aucun fichier : choisissez versions.txt, versions.json ou un fichier de région comme US.en.json".into(),
            TitleDiskFull => "le disque du dossier de données est plein : rien n'a été importé".into(),
            TitlesKnownNow { titles } => format!("{} désormais.", plural(*titles, "titre connu", "titres connus")),
            ListenByFlag => "l'adresse se règle au lancement avec --listen ou LUDOTHEQUE_LISTEN, qui l'emporte sur cette page".into(),
            ListeningOn { address } => format!("Le service écoute désormais sur {address}."),
            FilesIdentified { files } => format!("{} avec les clés de console.", plural(*files, "fichier identifié", "fichiers identifiés")),
            AddedToPush { files, total } => format!("{} à la liste d'envoi, qui en compte {total}.", plural(*files, "fichier ajouté", "fichiers ajoutés")),
            ConfirmForgetDevice { name, host } => format!("Oublier la console « {name} » ({host}) ? La liste d'envoi est gardée."),
            ShopDefaultMessage { files } => format!("Ludothèque · {}", files_fr(*files)),
        }
    }
}

impl Line {
    /// The line in French.
    pub fn french(&self) -> String {
        use Line::*;
        match self {
            InternalError => "erreur interne de ludotheque".into(),
            Error { message } => format!("erreur : {message}"),
            Cause { cause } => format!("détail : {cause}"),
            Usage { usage } => format!("Utilisation : {usage}"),
            UsageMore => "Pour en savoir plus : « --help ».".into(),
            UsageUnknownArgument { arg } => format!("argument inattendu « {arg} »"),
            UsageUnknownCommand { name } => format!("commande inconnue « {name} »"),
            UsageNeedsValue { arg } => format!("« {arg} » demande une valeur"),
            UsageBadValue { arg, value } => format!("valeur « {value} » invalide pour « {arg} »"),
            UsageMissing { arg } => format!("argument requis absent : {arg}"),
            UsageNeedsCommand { name } => format!("« {name} » demande une commande"),
            UsageOnce { arg } => format!("« {arg} » ne peut être donné qu'une fois"),
            UsageConflict { arg, prior } => format!("« {arg} » ne peut pas être donné avec « {prior} »"),
            UsageExtraValue { arg, value } => format!("valeur « {value} » en trop pour « {arg} »"),
            UsageValueCount { arg } => format!("« {arg} » n'a pas le bon nombre de valeurs"),
            UsageNoEquals { arg } => format!("« {arg} » demande un signe = avant sa valeur"),
            UsageNotUtf8 => "un argument n'est pas de l'UTF-8 valide".into(),
            UsageInvalid => "la ligne de commande n'est pas valide".into(),
            UsageValues { values } => format!(" ; valeurs possibles : {values}"),
            UsageCommands { commands } => format!(" ; commandes : {commands}"),
            UsageDidYouMean { suggested } => format!(" ; vouliez-vous dire « {suggested} » ?"),
            UsageWhy { why } => format!(" ({why})"),
            RememberedLibrary { library } => format!("Bibliothèque : {library} (celle du dernier lancement du service ; --library en nomme une autre)"),
            DemoWritten { dir, files } => format!("Bibliothèque de démonstration écrite dans {dir} : {}.", files_fr(*files)),
            DemoTitleDataImported { data } => format!("Ses données de titres sont importées (dossier de données {data})."),
            DemoTitleDataKept { dir } => format!("Le dossier de données a déjà des données de titres : celles de la démo sont dans {dir}."),
            DemoTryIt { data, library } => format!("Lancez « ludotheque --data {data} --library {library} serve » pour l'essayer."),
            TaskDone { task, said } => format!("Tâche {task} réussie : {said}."),
            TaskPartial { task, said } => format!("Tâche {task} terminée avec des erreurs : {said}."),
            FileFailed { key, why } => format!("  {key} : {why}"),
            HandedOff { task } => format!("Tâche {task} confiée au service qui utilise ce dossier de données ; Ctrl-C l'annule."),
            Healthy { url } => format!("Le service à l'adresse {url} est en bonne santé."),
            DeviceSet { name, address } => format!("Console « {name} » configurée sur {address}."),
            NoDevice => "Aucune console n'est configurée.".into(),
            DeviceForgotten => "Console oubliée.".into(),
            Waiting { games, bytes } => format!("{}, {} en attente", plural(*games, "jeu", "jeux"), plural(*bytes, "octet", "octets")),
            PushAdded { key } => format!("Ajouté à la liste d'envoi : {key}"),
            PushRemoved { key } => format!("Retiré de la liste d'envoi : {key}"),
            Restored { key } => format!("Restauré : {key}"),
            PurgedOne { key } => format!("Supprimé définitivement : {key}"),
            PurgedExpired { entries } => format!("{} {} définitivement.", plural(*entries, "entrée expirée", "entrées expirées"), agree(*entries, "supprimée", "supprimées")),
            PurgedAll { entries } => format!("{} {} définitivement.", plural(*entries, "entrée", "entrées"), agree(*entries, "supprimée", "supprimées")),
            TrashDates { deleted, expires } => format!("supprimé le {deleted}  expire le {expires}"),
            TrashTotal { entries, bytes } => format!("{}, {}.", plural(*entries, "entrée", "entrées"), plural(*bytes, "octet", "octets")),
            BackedUp { file } => format!("Base de données sauvegardée dans {file}."),
            BackupNoKeys => "Le fichier de clés de console (prod.keys) n'est pas dans la copie : gardez-en une copie à part, ou extrayez-le de nouveau de votre console.".into(),
            BackedUpSaves { dir, files } => format!("Sauvegardes des consoles ({}) copiées dans {dir}.", files_fr(*files)),
            KeyCreated { name, id, read_only } => format!("Clé d'API créée : {name} (id {id}, accès {})", if *read_only { "en lecture seule" } else { "complet" }),
            KeyShownOnce => "Cette clé n'est conservée que sous forme d'empreinte (SHA-256) : elle ne pourra plus jamais être affichée. Copiez-la maintenant.".into(),
            KeyRevoked { name, id, prefix } => format!("Clé d'API révoquée : {name} (id {id}, {prefix})"),
            KeyWasRevoked { name, id } => format!("La clé d'API {name} (id {id}) était déjà révoquée."),
            NoApiKey => "Aucune clé d'API.".into(),
            RevokedOn { date } => format!("révoquée le {date}"),
            AccountCreated { name, role } => format!("Compte créé : {name} ({role})"),
            PasswordChanged { name, ended } => format!("Mot de passe changé pour {name} ; {}.", plural(*ended, "session fermée", "sessions fermées")),
            AccountDeleted { name } => format!("Compte supprimé : {name}"),
            NoAccount => "Aucun compte.".into(),
            ConsoleAdded { name } => format!("Console ajoutée : {name}"),
            ConsolePasswordOnce => "Saisissez-les dans l'installateur de la console (la page Consoles explique où, installateur par installateur). Ce mot de passe n'est conservé que sous forme d'empreinte : il ne pourra plus être affiché. Copiez-le maintenant.".into(),
            NoConsole => "Aucune console : « ludotheque console add NOM » en ajoute une.".into(),
            ConsoleRemoved { name } => format!("Console retirée : {name} (son mot de passe ne fonctionne plus)."),
            DedupePreview { files: 0, .. } => "Aucun fichier remplacé ni doublon : rien ne partirait à la corbeille.".into(),
            DedupePreview { files, bytes: b } => format!("{} {} à la corbeille ({}) ; « ludotheque dedupe » {} met.", files_fr(*files), agree(*files, "partirait", "partiraient"), plural(*b, "octet", "octets"), agree(*files, "l'y", "les y")),
            OrganizePreview { moves, taken, in_place, left } => format!("{}, {} dont la place est occupée, {} déjà en place, {} {} (non identifiés ou liens).", plural(*moves, "fichier à déplacer", "fichiers à déplacer"), plural(*taken, "fichier", "fichiers"), n(*in_place), n(*left), agree(*left, "laissé tel quel", "laissés tels quels")),
            NoOrganizeRun => "Aucun rangement n'a encore déplacé de fichier.".into(),
            OrganizeRunState { undone_at: Some(at), put_back, .. } => format!("annulé le {at}, {} remis en place", n(*put_back)),
            OrganizeRunState { undone_at: None, moved, put_back } => format!("{}, {} remis en place", plural(*moved, "déplacé", "déplacés"), n(*put_back)),
            KeysImported { file } => format!("Clés de console importées dans {file} (mode 0600)."),
            KeysTakenLive => "Un service en marche les prend en compte sans redémarrer.".into(),
            KeysFile { file } => format!("Fichier de clés de console : {file}"),
            KeysUnusable { why } => format!("Ce fichier n'est pas utilisable : {why}"),
            KeysRead { state, files } => format!("{} {}", files_fr(*files), match state {
                KeysState::Read => agree(*files, "lu avec les clés", "lus avec les clés"),
                KeysState::Partial => agree(*files, "lu en partie avec les clés (nom ou icône illisibles : voir sa remarque)", "lus en partie avec les clés (nom ou icône illisibles : voir leur remarque)"),
                KeysState::WrongKeys => agree(*files, "ne se déchiffre pas avec ces clés (header_key est-elle la bonne ?)", "ne se déchiffrent pas avec ces clés (header_key est-elle la bonne ?)"),
                KeysState::MissingKey => agree(*files, "demande une révision de clés qui manque", "demandent une révision de clés qui manque"),
                KeysState::Unreadable => agree(*files, "illisible avec les clés", "illisibles avec les clés"),
            }),
            ImportedCatalogue { name, ids, empty_version, other_console, no_kind } => format!("{name} : {} ; ignorés : {} sans version, {} d'une autre console, {} d'aucun type", plural(*ids, "identifiant de titre", "identifiants de titres"), n(*empty_version), n(*other_console), n(*no_kind)),
            ImportedHistory { name, ids, versions, skipped, oversized, max_kib } => format!("{name} : {} de {} ; {}{}", plural(*versions, "version datée", "versions datées"), plural(*ids, "identifiant", "identifiants"), plural(*skipped, "ignoré", "ignorés"), oversized_fr(*oversized, *max_kib)),
            ImportedRegion { name, entries, skipped, oversized, max_kib } => format!("{name} : {} ; {} (sans identifiant ou sans nom){}", plural(*entries, "titre importé", "titres importés"), plural(*skipped, "ignoré", "ignorés"), oversized_fr(*oversized, *max_kib)),
            Renamed { games } => format!("{}.", plural(*games, "jeu renommé", "jeux renommés")),
            TitleDataUnchanged => "Les données de titres sont à jour : rien n'a changé à la source.".into(),
            NoTitleData => "Aucune donnée de titres importée (ludotheque titles import).".into(),
            LastImport { date, days, files } => format!("Dernier import : {date} ({}), fichiers : {files}", match days { 0 => "aujourd'hui".to_string(), 1 => "hier".to_string(), d => format!("il y a {}", plural(*d, "jour", "jours")) }),
            TitleCounts { known, versions, titles, updates, dlc } => format!("{}, {} ; dans la bibliothèque : {}, {} avec une mise à jour disponible, {} avec des DLC manquants.", plural(*known, "titre connu", "titres connus"), plural(*versions, "identifiant de version", "identifiants de versions"), plural(*titles, "titre", "titres"), n(*updates), n(*dlc)),
            Ignored { title, dlc, updates, counted } => format!("{} : {} {}.", title.as_deref().unwrap_or("tous les titres"), match (dlc, updates) { (true, true) => "les DLC manquants et les mises à jour", (true, false) => "les DLC manquants", _ => "les mises à jour" }, match (dlc, counted) { (true, true) => "sont de nouveau comptés", (true, false) => "ne sont plus comptés", (false, true) => "sont de nouveau comptées", (false, false) => "ne sont plus comptées" }),
            Dated { date } => format!(" du {date}"),
        }
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
fn bytes(value: u64) -> String {
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
