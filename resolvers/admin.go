package resolvers

// The 403s of what only a tenant's admins may do (auth.RequireAdmin,
// loupe.Principal.AdminOnly), one sentence per wing.
const (
	msgStoragesAdminOnly    = "Only administrators may change storages and read or change storage locations."
	msgBookmarksAdminOnly   = "Only administrators may change system bookmarks and bookmark folders."
	msgDefinitionsAdminOnly = "Only administrators may change metadata forms and option lists."
	msgConfigAdminOnly      = "Only administrators may change the tenant configuration."
	msgUsageAdminOnly       = "Only administrators may read the tenant's usage figures."
	msgPresetsAdminOnly     = "Only administrators may create, change and delete presets."
	msgSecurityAdminOnly    = "only admins change the security settings"
	msgSecurityReadOnly     = "only admins read the security settings"
)
