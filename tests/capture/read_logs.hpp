/*
 * read_logs.hpp - the C++ tests' reader of a log directory: every file's
 * text, in directory order, then the files and the directory removed.
 */
#ifndef XLOG_TEST_READ_LOGS_HPP
#define XLOG_TEST_READ_LOGS_HPP

#include <fstream>
#include <sstream>
#include <string>

#include <dirent.h>
#include <unistd.h>

static std::string read_logs(const char *dir)
{
    std::string text;
    DIR *d = opendir(dir);
    for (dirent *e; d && (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        std::string path = std::string(dir) + "/" + e->d_name;
        std::ifstream in(path.c_str());
        std::stringstream ss;
        ss << in.rdbuf();
        text += ss.str();
        unlink(path.c_str());
    }
    if (d)
        closedir(d);
    rmdir(dir);
    return text;
}

#endif
