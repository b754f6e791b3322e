//! The command line's help in French, like everything else it prints.
//!
//! The English doc comments of `args` stay the source of the man pages (`man/`, which
//! `tests/it/man.rs` generates from the clap tree and which stay English, like the
//! logs); the binary parses with the same tree, walked once before parsing to put
//! these French texts in place: every command's about, every argument's help and
//! value name, the headings, and what clap adds itself (`-h`, `-V`, `help`). clap
//! writes its `[default: …]` and `[env: …]` notes in English, so they are hidden and
//! written here in French. The walk reports every command and argument it found no
//! French for; a unit test keeps that list empty, so a new flag fails CI until it
//! has its French here.

use clap::builder::Resettable;
use clap::{Arg, Command, CommandFactory};

use crate::args::Args;

/// A command's French: its path (the names after `ludotheque`, separated by spaces;
/// "" for `ludotheque` itself), its about, and a longer text `--help` shows when it
/// has one.
const COMMANDS: &[(&str, &str, Option<&str>)] = &[
    ("", "Ludothèque : gestionnaire auto-hébergé d'une bibliothèque de fichiers de jeux Nintendo Switch", None),
    ("serve", "Lance le service (la commande par défaut)", Some("Lance le service (la commande par défaut).\n\nLance le service (la commande par défaut ; ses options peuvent aussi la précéder).")),
    ("scan", "Analyse la bibliothèque", Some("Analyse la bibliothèque.\n\nAnalyse la bibliothèque au premier plan ou par le serveur qui tourne sur le dossier de données.")),
    ("convert", "Décompresse chaque .nsz en .nsp et chaque .xcz en .xci", Some("Décompresse chaque .nsz en .nsp et chaque .xcz en .xci.\n\nConvertit au premier plan ou par le serveur qui tourne sur le dossier de données chaque .nsz en .nsp et chaque .xcz en .xci.")),
    ("verify", "Vérifie les fichiers avec les clés de console", Some("Vérifie les fichiers avec les clés de console.\n\nVérifie des fichiers avec les clés de console, au premier plan ou par le serveur qui tourne sur le dossier de données : le SHA-256 de chaque NCA contre l'enregistrement qu'en garde son CNMT (un .nsz ou un .xcz comme les NCA qu'il donne décompressé, écrits nulle part).\n\nUn fichier endommagé (un NCA qui ne correspond pas, qui manque ou qui est tronqué) est marqué : il n'est plus jouable, la boutique cesse de le proposer et l'envoi demande confirmation avant de l'envoyer, jusqu'à ce qu'une vérification suivante le trouve sain ou que le fichier change. Sort avec le code 1 quand un fichier est endommagé ou ne peut pas être vérifié (pas de CNMT, une clé qui manque), en nommant chacun avec la raison.")),
    ("organize", "Range les fichiers identifiés selon le modèle (annulable)", Some("Range les fichiers identifiés selon le modèle (annulable).\n\nRange chaque fichier identifié à la place que lui donne --organize-template, dans la bibliothèque, au premier plan ou par le serveur qui tourne sur le dossier de données ; chaque rangement est journalisé et peut être annulé.")),
    ("compress", "Compresse chaque .nsp en .nsz et .xci en .xcz (avec les clés)", Some("Compresse chaque .nsp en .nsz et .xci en .xcz (avec les clés).\n\nCompresse au premier plan ou par le serveur qui tourne sur le dossier de données chaque .nsp en .nsz et chaque .xci en .xcz, au format de nsz (que lisent tous les installateurs et nsz) ; demande les clés de console.\n\nChaque fichier compressé est décompressé à nouveau et chaque NCA comparé à l'enregistrement de son CNMT avant de prendre la place de l'original ; l'original part à la corbeille (raison compressed). Sont laissés tels quels, chacun nommé avec la raison, la tâche restant réussie : un fichier déjà compressé, un fichier dont les clés n'ont pas la révision de clé, un fichier qui gagnerait moins que --min-gain. Sort avec le code 1 quand un fichier a échoué (il n'a pas passé la vérification, le disque est plein), en nommant chacun avec la raison ; son original reste.")),
    ("dedupe", "Met à la corbeille les mises à jour remplacées et les doublons", Some("Met à la corbeille les mises à jour remplacées et les doublons.\n\nMet à la corbeille les mises à jour remplacées et les copies en double (raisons superseded et duplicate), au premier plan ou par le serveur qui tourne sur le dossier de données ; --dry-run ne fait que les lister.")),
    ("titles", "Données de titres : les mises à jour et DLC qui existent", Some("Données de titres : les mises à jour et DLC qui existent.\n\nDonnées de titres : quelles mises à jour et quels DLC existent, et ce qui manque à la bibliothèque (import, update, status, ignore).")),
    ("titles import", "Importe des fichiers de données de titres", Some("Importe des fichiers de données de titres.\n\nImporte des fichiers de données de titres (blawar/titledb) : versions.txt, versions.json et des fichiers de région comme US.en.json, autant qu'on veut dans l'ordre qu'on veut, en une transaction. Les noms importés l'emportent sur ceux tirés des noms de fichiers.")),
    ("titles update", "Télécharge les données de titres et les importe", Some("Télécharge les données de titres et les importe.\n\nTélécharge les fichiers de données de titres depuis --titledb-url (sous condition : un fichier inchangé n'est pas retéléchargé) et les importe ; les dernières bonnes données restent quand la source est en panne ou répond n'importe quoi.")),
    ("titles status", "L'âge des données de titres et ce qui manque à la bibliothèque", Some("L'âge des données de titres et ce qui manque à la bibliothèque.\n\nL'âge des données de titres, ce qu'elles contiennent et ce qui manque à la bibliothèque.")),
    ("titles ignore", "Cesse de compter les DLC ou mises à jour manquants d'un titre", Some("Cesse de compter les DLC ou mises à jour manquants d'un titre.\n\nCesse de compter les DLC manquants (--dlc) ou les mises à jour (--updates) d'un titre, ou les deux ; sans identifiant de titre, pour tous les titres.")),
    ("titles unignore", "Compte de nouveau ce que « ignore » avait cessé de compter", None),
    ("missing", "Liste les mises à jour et DLC qui manquent, titre par titre", Some("Liste les mises à jour et DLC qui manquent, titre par titre.\n\nListe, titre par titre, les mises à jour et les DLC qui manquent à la bibliothèque.")),
    ("demo-library", "Écrit une petite bibliothèque de démonstration dans DOSSIER", Some("Écrit une petite bibliothèque de démonstration dans DOSSIER.\n\nÉcrit une petite bibliothèque synthétique dans DOSSIER, pour essayer le service.\n\nSes identifiants de titres sont réels et ses noms inventés. Ses données de titres vont à côté, dans DOSSIER-titledb (versions.txt, versions.json, US.en.json), et sont importées dans le dossier de données quand celui-ci n'en a pas encore ; un dossier de données qui en a les garde.")),
    ("trash", "Liste, restaure ou supprime ce qui est dans la corbeille", Some("Liste, restaure ou supprime ce qui est dans la corbeille.\n\nListe, restaure ou supprime définitivement ce qui est dans la corbeille.")),
    ("library", "Liste, ajoute ou retire les dossiers de la bibliothèque", None),
    ("library list", "Liste les dossiers de la bibliothèque", Some("Liste les dossiers de la bibliothèque.\n\nListe chaque dossier : son nom (les clés des fichiers d'un dossier suivant sont NOM/…), son état (en ligne ; hors ligne : absent ou vide ; illisible), ses fichiers et leur taille, la place libre sur son disque, son système de fichiers (la surveillance scrute ceux du réseau), s'il est donné par --library ou ajouté, et où il est.")),
    ("library add", "Ajoute un dossier à la bibliothèque, et l'analyse", Some("Ajoute un dossier à la bibliothèque, et l'analyse.\n\nAjoute un dossier (qui existe) comme dossier NOM de la bibliothèque (par défaut le nom du dossier lui-même), gardé d'un lancement à l'autre, et l'analyse. Par le service en marche quand il y en a un, aussitôt, sans redémarrage.")),
    ("library remove", "Retire un dossier ajouté de la bibliothèque", Some("Retire un dossier ajouté de la bibliothèque.\n\nSes jeux quittent la bibliothèque (et la liste d'envoi et la corbeille avec eux) ; rien n'est touché sur le disque. Un dossier que donne --library reste : retirez l'option.")),
    ("trash list", "Liste les entrées de la corbeille", Some("Liste les entrées de la corbeille.\n\nListe les entrées : identifiant, clé, raison, taille, dates de suppression et d'expiration (dans le fuseau de la machine, avec son décalage).")),
    ("trash restore", "Remet une entrée à sa clé, ou sous un autre nom", Some("Remet une entrée à sa clé, ou sous un autre nom.\n\nRemet une entrée à sa clé, ou sous un autre nom avec --as (jamais par-dessus un fichier).")),
    ("trash purge", "Supprime définitivement une entrée, les expirées ou toutes", Some("Supprime définitivement une entrée, les expirées ou toutes.\n\nSupprime définitivement : une entrée, celles qui ont expiré, ou toutes.")),
    ("device", "Règle la console (une Switch avec un installateur réseau)", Some("Règle la console (une Switch avec un installateur réseau).\n\nRègle la console (une Switch qui fait tourner un installateur réseau).")),
    ("device set", "Règle l'adresse de la console", Some("Règle l'adresse de la console.\n\nRègle l'adresse de la console (et au besoin son port, son nom et l'adresse par laquelle elle joint ce service ; détectée quand elle n'est pas donnée).")),
    ("device show", "Affiche la console et ce qui attend de lui être envoyé", None),
    ("device clear", "Oublie la console", None),
    ("push", "La liste d'envoi : les jeux qui attendent d'aller à la console", Some("La liste d'envoi : les jeux qui attendent d'aller à la console.\n\nLa liste d'envoi : les jeux qui attendent d'être proposés à la console (POST /api/v1/push les propose ; le service doit tourner, la console télécharge depuis lui).")),
    ("push add", "Ajoute un jeu, ou un titre entier, à la liste d'envoi", Some("Ajoute un jeu, ou un titre entier, à la liste d'envoi.\n\nAjoute un jeu par sa clé, ou avec --title un identifiant de titre : son jeu de base, sa dernière mise à jour et tous ses DLC.")),
    ("push list", "Liste les jeux en attente", None),
    ("push remove", "Retire un jeu de la liste", None),
    ("keys", "Les clés de console (prod.keys) : import, vérification, état", Some("Les clés de console (prod.keys) : import, vérification, état.\n\nLes clés de console (prod.keys, de votre propre console) : vérifie et importe un fichier, ou montre ce que les clés donnent et ce qui manque à la bibliothèque.")),
    ("keys import", "Vérifie un fichier de clés et le met à sa place", Some("Vérifie un fichier de clés et le met à sa place.\n\nVérifie un fichier de clés (le prod.keys qu'écrit Lockpick_RCM) et le copie à sa place d'un seul coup, lisible par le seul utilisateur du service ; un fichier mal formé est refusé avec son numéro de ligne et le précédent reste tel quel.")),
    ("keys status", "Les clés présentes et celles dont la bibliothèque a besoin", Some("Les clés présentes et celles dont la bibliothèque a besoin.\n\nLes clés présentes, dérivées ou manquantes par révision de clés (jamais la valeur d'une clé), et les révisions dont les fichiers de la bibliothèque ont besoin.")),
    ("backup", "Copie la base et les sauvegardes dans FICHIER, service en marche", Some("Copie la base et les sauvegardes dans FICHIER, service en marche.\n\nCopie la base de données dans FICHIER pendant que le service tourne (sauvegarde en ligne de SQLite), et les sauvegardes des consoles dans le dossier FICHIER-saves à côté ; le fichier de clés de console (prod.keys) n'est pas dans la copie.")),
    ("health", "Demande à un service en marche s'il va bien (code 0 ou 1)", Some("Demande à un service en marche s'il va bien (code 0 ou 1).\n\nDemande à un service en marche s'il est en bonne santé (GET /api/v1/health) : sort avec 0 s'il l'est, 1 sinon ; la sonde du conteneur.\n\nN'affiche rien sans --verbose, et n'ouvre aucun dossier de données : elle ne fait que parler HTTP au service, à --url ou là où « serve » écoute (--listen, LUDOTHEQUE_LISTEN ; une adresse de toutes les interfaces, 0.0.0.0 ou ::, est demandée sur la boucle locale).")),
    ("completions", "Affiche un script de complétion pour un shell", Some("Affiche un script de complétion pour un shell.\n\nAffiche un script de complétion pour un shell (bash, zsh, fish, elvish, powershell).")),
    ("apikey", "Gère les clés de l'API publique (/api/v1/)", None),
    ("apikey create", "Crée une clé et l'affiche, une seule fois", Some("Crée une clé et l'affiche, une seule fois.\n\nCrée une clé et l'affiche, une seule fois : seule son empreinte est gardée.")),
    ("apikey list", "Liste les clés de l'API", Some("Liste les clés de l'API.\n\nListe les clés : identifiant, nom, préfixe, création, dernière utilisation, état.")),
    ("apikey revoke", "Révoque une clé (elle reste listée comme révoquée)", Some("Révoque une clé (elle reste listée comme révoquée).\n\nRévoque une clé par son identifiant ; elle reste listée comme révoquée.")),
    ("console", "Gère les consoles autorisées à se servir dans la boutique", Some("Gère les consoles autorisées à se servir dans la boutique.\n\nGère les consoles autorisées à se servir dans la boutique (un mot de passe chacune, que l'installateur de la console envoie en HTTP Basic ; il ouvre la boutique et rien d'autre).")),
    ("console add", "Ajoute une console et affiche son mot de passe, une fois", Some("Ajoute une console et affiche son mot de passe, une fois.\n\nAjoute une console et affiche son mot de passe, une seule fois : seule son empreinte est gardée.")),
    ("console list", "Liste les consoles : nom, création, dernière utilisation", None),
    ("console remove", "Retire une console ; son mot de passe cesse de fonctionner", Some("Retire une console ; son mot de passe cesse de fonctionner.\n\nRetire une console : son mot de passe cesse aussitôt de fonctionner.")),
    ("user", "Gère les comptes de l'interface web", Some("Gère les comptes de l'interface web.\n\nGère les comptes de l'interface web (les mots de passe sont lus au terminal, ou sur l'entrée standard quand ce n'en est pas un ; jamais sur la ligne de commande).")),
    ("user add", "Crée un compte (lecteur, sauf avec --admin)", Some("Crée un compte (lecteur, sauf avec --admin).\n\nCrée un compte (lecteur, sauf avec --admin), ses pages dans la langue de la ligne de commande (celle de la locale ; les Réglages la changent).")),
    ("user passwd", "Change le mot de passe d'un compte et ferme ses sessions", Some("Change le mot de passe d'un compte et ferme ses sessions.\n\nChange le mot de passe d'un compte ; ses sessions ouvertes se ferment.")),
    ("user list", "Liste les comptes : nom, rôle, langue, création", None),
    ("user delete", "Supprime un compte ; ses sessions se ferment aussitôt", None),
];

/// The about of the `help` subcommand clap adds to every command that has some.
const HELP_ABOUT: &str = "Affiche cette aide, ou celle des commandes nommées";

/// An argument's French: the command's path ("*": any command, for the global flags
/// and those several commands share), the argument's id, its value name ("" for a
/// flag), its help.
const ARGS: &[(&str, &str, &str, &str)] = &[
    ("*", "help", "", "Affiche l'aide"),
    ("*", "version", "", "Affiche la version"),
    ("*", "data", "DOSSIER", "Dossier de données : la base de données et le fichier de verrou"),
    ("*", "library", "[NOM=]DOSSIER", "Dossier de la bibliothèque : les fichiers de jeux (créé s'il manque). Donnée encore, chaque dossier suivant entre dans la bibliothèque comme son dossier NOM (NOM=DOSSIER ; par défaut le nom du dossier lui-même), les clés de ses fichiers NOM/… ; voir ludotheque-library(1). Quand elle n'est pas donnée, une commande prend les dossiers du dernier lancement du service, et dit lesquels"),
    ("*", "work_dir", "DOSSIER", "Où convert et compress écrivent pendant leur travail (un disque plus rapide) ; le fichier fini est ensuite copié à côté de son original, vérifié, puis renommé à sa place [par défaut : à côté de chaque fichier produit]"),
    ("*", "log_level", "NIVEAU", "Niveau du journal sur la sortie d'erreur : error, warn, info, debug, trace ou off"),
    ("*", "dedupe_keep", "COPIE", "La copie que « dedupe » garde d'un identifiant de titre et d'une version trouvés deux fois : non compressée (.nsp, .xci) ou compressée (.nsz, .xcz). La version saine la plus récente reste toujours : une copie endommagée ne reste jamais à la place d'une copie saine"),
    ("*", "organize_template", "MODÈLE", "Où « organize » range chaque fichier, relativement au dossier de sa plateforme. Champs : {name} (celui du jeu de base, aussi pour ses mises à jour et ses DLC), {dlc_name} (celui du fichier), {own_name} (celui d'un DLC pour un DLC, celui du jeu pour les autres), {title_id}, {base_title_id}, {version}, {type} (Base, Update, DLC), {ext}. Donné, il l'emporte sur les Réglages ; sinon ce qu'un administrateur y a réglé, sinon « {name}/{own_name} [{title_id}][v{version}].{ext} »"),
    ("*", "keys", "FICHIER", "Le fichier de clés de console : prod.keys, extrait de votre propre console avec Lockpick_RCM (voir ludotheque-keys(1)) [par défaut : DONNÉES/prod.keys, qui doit être le fichier lui-même : un lien symbolique y est refusé sans être lu]"),
    ("serve", "listen", "ADRESSE", "Adresse et port d'écoute (le port 0 en choisit un libre)"),
    ("serve", "workers", "NOMBRE", "Fils de traitement des requêtes [par défaut : deux fois le nombre de cœurs, au moins 4]"),
    ("serve", "queue", "NOMBRE", "Requêtes qui peuvent attendre un fil de traitement ; au-delà, les nouvelles reçoivent 503. Autant que de connexions par défaut : un client qui attend chaque réponse ne l'atteint jamais"),
    ("serve", "max_connections", "NOMBRE", "Connexions ouvertes au plus ; au-delà, celles inactives depuis le plus longtemps sont fermées"),
    ("serve", "idle_timeout_secs", "SECONDES", "Une connexion persistante sans aucun octet dans un sens ni dans l'autre pendant ce nombre de secondes est fermée"),
    ("serve", "request_timeout_secs", "SECONDES", "Une requête incomplète (en-têtes et corps) ce nombre de secondes après son premier octet fait fermer sa connexion. Seule la réception compte : une requête complète qui attend un fil de travail reçoit sa réponse, quelle que soit son attente"),
    ("serve", "write_timeout_secs", "SECONDES", "Une réponse dont le client ne prend aucun octet pendant ce nombre de secondes fait fermer sa connexion et libère son fil. Jamais une limite sur toute la réponse : une console qui télécharge lentement n'est jamais coupée"),
    ("serve", "max_body", "OCTETS", "Plus grand corps de requête accepté, en octets (plus grand : 413) ; les sauvegardes envoyées ont --save-max-bytes"),
    ("serve", "save_max_bytes", "OCTETS", "Plus grande sauvegarde qu'une console peut envoyer, en octets (plus grande : 413)"),
    ("serve", "save_versions", "N", "Sauvegardes gardées par console et par titre ; les plus anciennes vont à la corbeille"),
    ("serve", "save_quota", "OCTETS", "Octets que les sauvegardes d'une console peuvent occuper au plus (celles de CyberFoil et de WebDAV ensemble ; la corbeille à part) ; un envoi au-delà reçoit 507"),
    ("serve", "no_local_access", "", "Désactive la règle de la boucle locale (les requêtes sans clé venues de cette machine ont un accès complet)"),
    ("serve", "local_access", "QUI", "Les programmes de cette machine que la règle de la boucle locale admet : users (ceux de root, de l'utilisateur du service ou d'un utilisateur de --local-access-users, d'après le propriétaire de leur socket), any (tous, un mandataire inverse aussi) ou off"),
    ("serve", "local_access_users", "UTILISATEURS", "D'autres utilisateurs dont les programmes ont l'accès local (noms ou uid séparés par des virgules)"),
    ("serve", "key_rate", "NOMBRE", "Requêtes par seconde permises par clé d'API"),
    ("serve", "key_burst", "NOMBRE", "Rafale de requêtes permise par clé d'API au-delà du débit"),
    ("serve", "auth_failures_per_minute", "NOMBRE", "Échecs d'authentification permis par adresse cliente et par minute"),
    ("serve", "trash_retention_days", "JOURS", "Jours pendant lesquels un fichier mis à la corbeille est gardé avant d'être supprimé définitivement (au démarrage, puis chaque jour) : donné, il l'emporte sur les Réglages ; sinon ce qu'un administrateur y a réglé, sinon 30"),
    ("serve", "push_timeout_secs", "SECONDES", "Un envoi prend fin après ce nombre de secondes sans requête de la console"),
    ("serve", "convert_accept_unverified", "", "Garde un fichier converti même quand ses NCA ne correspondent pas à leurs identifiants de contenu"),
    ("serve", "trusted_proxy", "CIDR", "Adresse ou réseau (CIDR, comme 172.18.0.0/16) d'un mandataire inverse : ses en-têtes de transfert sont crus et son --auth-header connecte les gens (option répétable, ou valeurs séparées par des virgules). Aucun par défaut"),
    ("serve", "auth_header", "EN-TÊTE", "L'en-tête dans lequel un mandataire de confiance nomme l'utilisateur connecté (Authelia, Authentik…) ; ignoré venant de toute autre adresse"),
    ("serve", "auth_header_create", "", "Crée le compte que nomme un mandataire de confiance, en lecteur, quand il n'existe pas"),
    ("serve", "auth_logout_url", "URL", "Où « Se déconnecter » envoie le navigateur (la page de déconnexion du mandataire)"),
    ("serve", "shop_public", "", "Sert la boutique à toute console sans mot de passe (sur un réseau de confiance : quiconque atteint le service peut lister et télécharger tous les jeux)"),
    ("serve", "shop_downloads", "NOMBRE", "Téléchargements qu'une console peut mener à la fois ; les suivants attendent leur tour dans la file de la console (quatre par téléchargement de sa part), et au-delà reçoivent 503"),
    ("serve", "shop_downloads_total", "NOMBRE", "Téléchargements que toutes les consoles ensemble peuvent mener à la fois (sur des fils à part, pour que les pages et l'API n'attendent jamais derrière un téléchargement)"),
    ("*", "titledb_url", "URL", "URL de base des fichiers de données de titres (versions.txt, versions.json, RÉGION.json) ; option répétable, ou valeurs séparées par des virgules : chaque fichier vient de la première qui le donne"),
    ("*", "titledb_region", "RÉGION", "Le fichier de région à télécharger, sans « .json » (noms, éditeurs, icônes)"),
    ("serve", "titledb_every", "DURÉE", "Télécharge les données de titres à ce rythme, en tâche, jamais à côté d'une autre (1m, 6h, 24h ; 0 : jamais). Par défaut : toutes les 24 h une fois qu'elles ont été téléchargées d'une source, jamais tant qu'elles n'ont été qu'importées de fichiers"),
    ("serve", "titledb_refresh_hours", "HEURES", "L'ancienne écriture de --titledb-every, en heures"),
    ("serve", "webhook_url", "URL", "Envoie (POST) un évènement JSON à cette adresse (http ou https) quand une tâche se termine, quand des titres apparaissent dans la bibliothèque et quand des mises à jour deviennent disponibles (les évènements : WEBHOOK dans ludotheque-serve(1)). Un jeton qu'elle porte se voit dans la liste des processus : préférez la variable d'environnement ou --webhook-url-file"),
    ("serve", "webhook_url_file", "FICHIER", "Lit l'adresse du webhook sur la première ligne de ce fichier : un jeton qu'elle porte ne se voit alors ni dans la liste des processus ni dans l'environnement"),
    ("serve", "notify", "URL", "Envoie des notifications à ce destinataire (option répétable ; la variable en tient un par ligne) : ntfy://, ntfys://, gotify://, gotifys://, discord://, tgram://, json://, jsons:// (NOTIFICATIONS dans ludotheque-serve(1)). Un jeton qu'il porte se voit dans la liste des processus : préférez --notify-file"),
    ("serve", "notify_file", "FICHIER", "Lit des destinataires de notifications dans ce fichier, une adresse par ligne (les lignes vides et celles qui commencent par # sont sautées)"),
    ("serve", "low_space", "POURCENT", "Prévient quand le disque de la bibliothèque ou du dossier de données a moins de cette part de libre, en pour cent (0 : jamais)"),
    ("serve", "public_url", "URL", "L'adresse du service telle que les gens l'atteignent (https://ludo.example.net) : les liens des notifications commencent par elle"),
    ("serve", "test_notify_base", "URL", "Aide aux tests : les messages pour Discord et Telegram vont à cette origine"),
    ("serve", "webhook_secret", "SECRET", "Signe chaque évènement : « X-Ludotheque-Signature: sha256=<HMAC-SHA256 du corps, en hexadécimal> ». Préférez la variable d'environnement : une option se voit dans la liste des processus"),
    ("serve", "watch", "MODE", "Comment les changements dans la bibliothèque sont vus sans analyse"),
    ("organize", "dry_run", "", "Liste chaque déplacement (et chaque fichier dont la place est occupée) ; ne déplace rien"),
    ("organize", "list", "", "Liste les rangements : numéro, date, modèle, fichiers déplacés et remis en place"),
    ("organize", "undo", "RANGEMENT", "Remet en place chaque fichier que le rangement RANGEMENT a déplacé (le plus récent d'abord, quand plusieurs ont déplacé le même fichier)"),
    ("dedupe", "dry_run", "", "Liste ce qui partirait, et la copie qui reste ; ne déplace rien"),
    ("verify", "files", "CLÉ", "Les fichiers à vérifier, par clé de bibliothèque (leur chemin dans la bibliothèque) ; aucune : chaque .nsp, .nsz, .xci et .xcz"),
    ("compress", "files", "CLÉ", "Les fichiers à compresser, par clé de bibliothèque (leur chemin dans la bibliothèque) ; aucune : chaque .nsp et .xci"),
    ("compress", "level", "N", "Niveau zstd, de 1 à 22 (18 par défaut, comme nsz)"),
    ("compress", "solid", "", "Un seul flux zstd par NCA au lieu de blocs indépendants : un peu plus petit, décompressé sur un seul cœur"),
    ("compress", "min_gain", "P", "Laisse un fichier tel quel quand la compression gagne moins de P pour cent de sa taille (2 par défaut)"),
    ("compress", "delete_originals", "", "Supprime chaque original une fois son fichier compressé vérifié et à sa place, au lieu de le garder dans la corbeille (où il ne libère rien avant d'être purgé)"),
    ("titles import", "files", "FICHIERS", "Les fichiers ; leur nom dit lequel est lequel"),
    ("*", "title_id", "ID_TITRE", "L'identifiant de titre du jeu de base (16 chiffres hexadécimaux) ; aucun pour tous les titres"),
    ("*", "dlc", "", "Les DLC manquants"),
    ("*", "updates", "", "Les mises à jour disponibles"),
    ("missing", "kind", "TYPE", "Seulement les mises à jour ou seulement les DLC"),
    ("demo-library", "dir", "DOSSIER", "Où l'écrire (créé s'il manque)"),
    ("library add", "folder", "[NOM=]DOSSIER", "Le dossier, sous la forme NOM=DOSSIER ou DOSSIER"),
    ("library remove", "name", "NOM", "Le nom du dossier, tel que le montre « library list »"),
    ("trash restore", "id", "ID", "L'identifiant que montre « trash list »"),
    ("trash restore", "as_name", "NOM", "Remet le fichier sous ce nom, dans son dossier d'origine, quand sa place est prise (même extension)"),
    ("trash purge", "id", "ID", "L'identifiant que montre « trash list »"),
    ("trash purge", "expired", "", "Toutes les entrées dont la durée de conservation est passée"),
    ("trash purge", "all", "", "Toutes les entrées"),
    ("device set", "host", "HÔTE", "L'adresse de la console (nom ou adresse IP)"),
    ("device set", "port", "PORT", "Le port de son installateur réseau"),
    ("device set", "name", "NOM", "Le nom que l'interface donne à la console"),
    ("device set", "offer_address", "ADRESSE", "L'adresse par laquelle la console joint ce service (détectée quand elle n'est pas donnée)"),
    ("push add", "key", "CLÉ", "La clé du jeu (son chemin dans la bibliothèque), ou avec --title un identifiant de titre"),
    ("push add", "title", "", "CLÉ est un identifiant de titre : ajoute son jeu de base, sa dernière mise à jour et tous ses DLC"),
    ("push remove", "key", "CLÉ", "La clé du jeu à retirer"),
    ("keys import", "file", "FICHIER", "Le fichier à importer"),
    ("backup", "file", "FICHIER", "Où écrire la copie (il ne doit pas encore exister)"),
    ("health", "url", "BASE", "L'adresse de base du service, comme http://127.0.0.1:8080 [par défaut : d'après --listen]"),
    ("health", "listen", "ADRESSE", "L'adresse où « serve » écoute, demandée quand --url n'est pas donnée"),
    ("health", "timeout_secs", "SECONDES", "Les secondes que peut prendre tout l'échange"),
    ("health", "verbose", "", "Dit comment cela s'est passé : une ligne sur la sortie standard en bonne santé, la raison sur la sortie d'erreur sinon"),
    ("completions", "shell", "SHELL", "Le shell pour lequel écrire le script"),
    ("apikey create", "name", "NOM", "À quoi sert la clé (par exemple nightly-scan)"),
    ("apikey create", "read_only", "", "La clé peut lire, mais pas lancer de tâches"),
    ("apikey revoke", "id", "ID", "L'identifiant que montre « apikey list »"),
    ("console add", "name", "NOM", "Le nom de la console, que son installateur envoie comme nom d'utilisateur (sans « : »)"),
    ("console remove", "name", "NOM", "Le nom de la console à retirer"),
    ("user add", "name", "NOM", "Le nom du compte"),
    ("user add", "admin", "", "Le compte peut changer les choses, pas seulement regarder"),
    ("user passwd", "name", "NOM", "Le nom du compte"),
    ("user delete", "name", "NOM", "Le nom du compte à supprimer"),
];

/// What a possible value means: the argument's id, the value, its French.
const VALUES: &[(&str, &str, &str)] = &[
    ("dedupe_keep", "uncompressed", "garde le .nsp ou le .xci"),
    ("dedupe_keep", "compressed", "garde le .nsz ou le .xcz"),
    (
        "watch",
        "auto",
        "inotify ; sondage sur NFS, SMB et les autres montages réseau",
    ),
    ("watch", "poll", "sondage, où que soit la bibliothèque"),
    (
        "watch",
        "off",
        "rien : seule une analyse voit les changements",
    ),
    ("kind", "update", "les mises à jour"),
    ("kind", "dlc", "les DLC"),
];

/// The command line's tree with its help in the command line's language, ready to
/// parse: the French put in place, or the English of `args` as the man pages have it.
pub fn command() -> Command {
    let english = crate::args::shown(Args::command());
    match super::out::lang() {
        crate::error::i18n::Lang::Fr => translate(english).0,
        crate::error::i18n::Lang::En => english,
    }
}

/// `cmd` built, with its French put in place, and what found no French (a line per
/// command, argument or value; a test keeps it empty).
pub fn translate(mut cmd: Command) -> (Command, Vec<String>) {
    // Built first, so that what clap adds (global flags copied into each command,
    // `-h`, `-V`, the `help` subcommands) is there to be translated too.
    cmd.build();
    let mut missing = Vec::new();
    let cmd = walk(cmd, "", &mut missing);
    (cmd, missing)
}

fn walk(cmd: Command, path: &str, missing: &mut Vec<String>) -> Command {
    let cmd = match COMMANDS.iter().find(|c| c.0 == path) {
        Some(&(_, about, long)) => cmd.about(about).long_about(long),
        None => {
            missing.push(format!("the command “{path}”"));
            cmd
        }
    };
    let cmd = headings(cmd.mut_args(|a| arg(a, path, missing)));
    cmd.mut_subcommands(|sub| {
        let name = sub.get_name().to_string();
        if name == "help" {
            help_subcommand(sub, path)
        } else {
            walk(sub, &join(path, &name), missing)
        }
    })
}

fn join(path: &str, name: &str) -> String {
    match path {
        "" => name.to_string(),
        _ => format!("{path} {name}"),
    }
}

/// clap's `help` subcommand: its about, and the abouts of the copy of the tree it
/// holds (what completions offer after `help`).
fn help_subcommand(help: Command, parent: &str) -> Command {
    fn copy(sub: Command, parent: &str) -> Command {
        let path = join(parent, sub.get_name());
        let about = match sub.get_name() {
            "help" => Some(HELP_ABOUT),
            _ => COMMANDS.iter().find(|c| c.0 == path).map(|c| c.1),
        };
        sub.about(about).mut_subcommands(|s| copy(s, &path))
    }
    help.about(HELP_ABOUT).mut_subcommands(|s| copy(s, parent))
}

/// One argument's French, with the notes clap would write in English (default,
/// variable, possible values) written in French instead.
fn arg(a: Arg, path: &str, missing: &mut Vec<String>) -> Arg {
    let id = a.get_id().as_str().to_string();
    if a.is_hide_set() {
        return a;
    }
    // The root takes `serve`'s flags (no command means `serve`): the same French.
    let own = |e: &&(&str, &str, &str, &str)| e.0 == path || (path.is_empty() && e.0 == "serve");
    let found = ARGS.iter().find(|e| own(e) && e.1 == id);
    let Some(&(_, _, value, help)) =
        found.or_else(|| ARGS.iter().find(|e| e.0 == "*" && e.1 == id))
    else {
        missing.push(format!("the argument {id} of “{path}”"));
        return a;
    };
    let text = format!("{help}{}", notes(&a, &id, missing));
    let a = if value.is_empty() {
        a
    } else {
        a.value_name(value)
    };
    a.help(text)
        .long_help(Resettable::Reset)
        .hide_default_value(true)
        .hide_env(true)
        .hide_possible_values(true)
}

/// ` [par défaut : …] [env : …]` and the possible values, with their French when
/// they have some.
fn notes(a: &Arg, id: &str, missing: &mut Vec<String>) -> String {
    let mut out = String::new();
    let takes_values = a.get_action().takes_values();
    let defaults: Vec<String> = a
        .get_default_values()
        .iter()
        .map(|v| v.to_string_lossy().into_owned())
        .collect();
    if takes_values && !defaults.is_empty() && !a.is_hide_default_value_set() {
        let default = defaults.join(",");
        match default.contains(' ') {
            true => out.push_str(&format!(" [par défaut : « {default} »]")),
            false => out.push_str(&format!(" [par défaut : {default}]")),
        }
    }
    if let Some(env) = a.get_env().filter(|_| !a.is_hide_env_set()) {
        out.push_str(&format!(" [env : {}]", env.to_string_lossy()));
    }
    let values: Vec<_> = a
        .get_possible_values()
        .into_iter()
        .filter(|v| !v.is_hide_set())
        .collect();
    if !takes_values || values.is_empty() || a.is_hide_possible_values_set() {
        return out;
    }
    let french = |v: &str| VALUES.iter().find(|e| e.0 == id && e.1 == v).map(|e| e.2);
    if values.iter().all(|v| french(v.get_name()).is_none()) {
        let names: Vec<&str> = values.iter().map(|v| v.get_name()).collect();
        out.push_str(&format!(" [valeurs possibles : {}]", names.join(", ")));
    }
    for v in &values {
        match french(v.get_name()) {
            Some(text) => out.push_str(&format!("\n- {} : {text}", v.get_name())),
            None if v.get_help().is_some() => {
                missing.push(format!("the value {} of {id}", v.get_name()))
            }
            None => {}
        }
    }
    out
}

/// The help's layout with its headings in French (clap writes "Usage:",
/// "Commands:", "Arguments:", "Options:" itself), each section only when it has
/// something to show, in clap's order.
fn headings(cmd: Command) -> Command {
    let styles = cmd.get_styles();
    let (h, u) = (*styles.get_header(), *styles.get_usage());
    let mut t = format!("{{before-help}}{{about-with-newline}}\n{u}Utilisation :{u:#} {{usage}}");
    let has_commands = cmd.get_subcommands().any(|s| !s.is_hide_set());
    let shown = |positional: bool| {
        cmd.get_arguments()
            .any(|a| a.is_positional() == positional && !a.is_hide_set())
    };
    if has_commands {
        t.push_str(&format!("\n\n{h}Commandes :{h:#}\n{{subcommands}}"));
    }
    if shown(true) {
        t.push_str(&format!("\n\n{h}Arguments :{h:#}\n{{positionals}}"));
    }
    if shown(false) {
        t.push_str(&format!("\n\n{h}Options :{h:#}\n{{options}}"));
    }
    t.push_str("{after-help}");
    let cmd = cmd.help_template(t);
    match has_commands {
        true => cmd.subcommand_value_name("COMMANDE"),
        false => cmd,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(cmd: &Command, path: &str, out: &mut Vec<String>) {
        out.push(path.to_string());
        for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
            paths(sub, &join(path, sub.get_name()), out);
        }
    }

    fn find<'a>(cmd: &'a mut Command, path: &str) -> &'a mut Command {
        path.split_whitespace().fold(cmd, |c, name| {
            c.get_subcommands_mut()
                .find(|s| s.get_name() == name)
                .unwrap()
        })
    }

    /// A command, argument or possible value added without its French fails here.
    #[test]
    fn every_command_argument_and_value_has_its_french() {
        let (_, missing) = translate(Args::command());
        assert!(missing.is_empty(), "no French for:\n{}", missing.join("\n"));
    }

    /// Each French entry still names something: a removed flag takes its French along.
    #[test]
    fn every_french_entry_names_a_command_or_argument() {
        let mut english = Args::command();
        english.build();
        let mut all = Vec::new();
        paths(&english, "", &mut all);
        for (path, _, _) in COMMANDS {
            assert!(all.contains(&path.to_string()), "no command « {path} »");
        }
        for (path, id, _, _) in ARGS {
            let found = all.iter().any(|p| {
                (*path == "*" || path == p)
                    && find(&mut english, p)
                        .get_arguments()
                        .any(|a| a.get_id() == *id)
            });
            assert!(found, "no argument {id} in « {path} »");
        }
    }

    /// Every help screen, short and long, is French: none of clap's English is left.
    #[test]
    fn no_help_screen_keeps_clap_english() {
        let mut french = command();
        let mut all = Vec::new();
        paths(&french, "", &mut all);
        let english = [
            "Usage:",
            "Commands:",
            "Options:",
            "Arguments:",
            "Print help",
            "Print version",
            "Print this message",
            "[default:",
            "[env:",
            "possible values",
            "<COMMAND>",
        ];
        for path in &all {
            let cmd = find(&mut french, path);
            for text in [
                cmd.render_help().to_string(),
                cmd.render_long_help().to_string(),
            ] {
                for word in english {
                    assert!(!text.contains(word), "« {path} » says {word}:\n{text}");
                }
                assert!(text.contains("Utilisation :"), "« {path} »:\n{text}");
                assert!(text.contains("Affiche l'aide"), "« {path} »:\n{text}");
            }
        }
    }

    /// `ludotheque --help` lists each command in one short line, in both languages:
    /// the detail is in `COMMAND --help` (the long about) and the man page.
    #[test]
    fn every_about_fits_one_line() {
        fn long(cmd: &Command, path: &str, out: &mut Vec<String>) {
            let about = cmd.get_about().map(|a| a.to_string()).unwrap_or_default();
            if about.chars().count() > ABOUT_MAX {
                out.push(format!("« {path} » ({}): {about}", about.chars().count()));
            }
            for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
                long(sub, &join(path, sub.get_name()), out);
            }
        }
        let mut out = Vec::new();
        let mut english = crate::args::shown(Args::command());
        english.build();
        for root in [english, translate(Args::command()).0] {
            for sub in root.get_subcommands().filter(|s| s.get_name() != "help") {
                long(sub, sub.get_name(), &mut out);
            }
        }
        assert!(out.is_empty(), "too long for one line:\n{}", out.join("\n"));
    }

    /// The widest about that fits an 80-column terminal beside clap's name column.
    const ABOUT_MAX: usize = 64;
}
