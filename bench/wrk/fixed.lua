-- One request over and over (the URL and -H headers given to wrk); only the report is added.
package.path = (debug.getinfo(1, "S").source:match("^@(.*/)") or "./") .. "?.lua;" .. package.path
done = require("report").done
