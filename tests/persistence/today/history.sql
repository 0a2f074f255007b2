PRAGMA user_version = 3;
BEGIN TRANSACTION;
CREATE TABLE answer_chunks (
        message_id INTEGER NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        text TEXT NOT NULL,
        PRIMARY KEY (message_id, seq)
    );
CREATE TABLE conversations (
        id TEXT PRIMARY KEY,
        title TEXT NOT NULL,
        workspace TEXT,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL
    );
INSERT INTO "conversations" VALUES('658ffa9f4b50','Écris a.txt','/tmp/tmpzp8nlk69/workspace',1.79641394364146685601e+09,1.79641394386603093146e+09);
CREATE TABLE messages (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
        role TEXT NOT NULL,
        content TEXT NOT NULL DEFAULT '',
        tool_calls TEXT,
        tool_call_id TEXT,
        tool_name TEXT,
        origin TEXT NOT NULL DEFAULT 'user',
        status TEXT NOT NULL DEFAULT 'complete',
        extra TEXT,
        created_at REAL NOT NULL
    , writer TEXT, thinking TEXT, thinking_seconds REAL, images TEXT);
INSERT INTO "messages" VALUES(1,'658ffa9f4b50','user','Écris a.txt',NULL,NULL,NULL,'user','complete',NULL,1.79641394364267230031e+09,NULL,NULL,NULL,NULL);
INSERT INTO "messages" VALUES(2,'658ffa9f4b50','assistant','','[{"id": "call_4e6f948a", "name": "write_file", "args": {"path": "a.txt", "content": "tour 1\n"}}]',NULL,NULL,'user','complete',NULL,1.79641394375873160362e+09,NULL,NULL,NULL,NULL);
INSERT INTO "messages" VALUES(3,'658ffa9f4b50','tool','Overwrote a.txt (7 bytes).',NULL,'call_4e6f948a','write_file','user','complete','{"ok": true, "summary": "a.txt \u00e9crit (7 octets)", "change": {"path": "a.txt", "kind": "modified", "diff": "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-avant\n+tour 1\n", "added": 1, "removed": 1}}',1.79641394377485752106e+09,NULL,NULL,NULL,NULL);
INSERT INTO "messages" VALUES(4,'658ffa9f4b50','assistant','J''ai écrit a.txt.',NULL,NULL,NULL,'user','complete',NULL,1.7964139437781643867e+09,'65abdfe3484e4cfcab8669d63a01f05c',NULL,NULL,NULL);
INSERT INTO "messages" VALUES(5,'658ffa9f4b50','user','Change a.txt et crée b.txt',NULL,NULL,NULL,'user','complete',NULL,1.7964139437866778374e+09,NULL,NULL,NULL,NULL);
INSERT INTO "messages" VALUES(6,'658ffa9f4b50','assistant','','[{"id": "call_3a0dc5f1", "name": "edit_file", "args": {"path": "a.txt", "old_text": "tour 1", "new_text": "tour 2"}}, {"id": "call_8ba14a00", "name": "write_file", "args": {"path": "b.txt", "content": "nouveau\n"}}]',NULL,NULL,'user','complete',NULL,1.79641394382159566879e+09,NULL,NULL,NULL,NULL);
INSERT INTO "messages" VALUES(7,'658ffa9f4b50','tool','Edited a.txt.',NULL,'call_3a0dc5f1','edit_file','user','complete','{"ok": true, "summary": "a.txt modifi\u00e9", "change": {"path": "a.txt", "kind": "modified", "diff": "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-tour 1\n+tour 2\n", "added": 1, "removed": 1}}',1.79641394384911751744e+09,NULL,NULL,NULL,NULL);
INSERT INTO "messages" VALUES(8,'658ffa9f4b50','tool','Created b.txt (8 bytes).',NULL,'call_8ba14a00','write_file','user','complete','{"ok": true, "summary": "b.txt \u00e9crit (8 octets)", "change": {"path": "b.txt", "kind": "added", "diff": "--- /dev/null\n+++ b/b.txt\n@@ -0,0 +1 @@\n+nouveau\n", "added": 1, "removed": 0, "content": "nouveau\n"}}',1.79641394385246753692e+09,NULL,NULL,NULL,NULL);
INSERT INTO "messages" VALUES(9,'658ffa9f4b50','assistant','Fait, a.txt et b.txt.',NULL,NULL,NULL,'user','complete',NULL,1.79641394385542201993e+09,'65abdfe3484e4cfcab8669d63a01f05c','Je réfléchis.',0.0,NULL);
INSERT INTO "messages" VALUES(10,'658ffa9f4b50','user','Merci',NULL,NULL,NULL,'user','complete',NULL,1.7964139438582611084e+09,NULL,NULL,NULL,NULL);
INSERT INTO "messages" VALUES(11,'658ffa9f4b50','assistant','Rien d''autre à faire.',NULL,NULL,NULL,'user','complete',NULL,1.79641394386550211901e+09,'65abdfe3484e4cfcab8669d63a01f05c',NULL,NULL,NULL);
CREATE INDEX messages_by_conversation ON messages(conversation_id, id);
DELETE FROM "sqlite_sequence";
INSERT INTO "sqlite_sequence" VALUES('messages',11);
COMMIT;
