-- PostgreSQL's form of ../0008_web.sql.

ALTER TABLE guild_settings ADD COLUMN web TEXT NOT NULL DEFAULT 'on';
